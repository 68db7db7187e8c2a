#if CONTROLLERFSM_PTHREAD_LOCK
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#else
import Synchronization
#endif

#if !CONTROLLERFSM_PTHREAD_LOCK
/// The Linux `MachineLock`: the standard library's `Mutex`, a futex-based lock whose uncontended
/// path is one atomic compare-and-swap to take and one store to release, inlined into the caller.
public final class MutexLock: MachineLock {
    @usableFromInline let mutex = Mutex(())

    public init() {}

    @inlinable
    public func withLock<Result>(_ body: () -> Result) -> Result {
        mutex.withLock { _ in body() }
    }

    @inlinable
    public func withLockIfAvailable<Result>(_ body: () -> Result) -> Result? {
        mutex.withLockIfAvailable { _ in body() }
    }
}
#else
/// `MutexLock` as a pthread mutex, for ThreadSanitizer builds (`scripts/sanitize.sh` defines
/// CONTROLLERFSM_PTHREAD_LOCK): TSan knows pthread mutexes but not the raw futex under the
/// standard library's `Mutex`, and would report every access the lock protects as a race.
/// Same semantics, slower; never the shipped lock.
public final class MutexLock: MachineLock, @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    public func withLock<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    @inlinable
    public func withLockIfAvailable<Result>(_ body: () -> Result) -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
#endif

/// A `SharedMachine` on Linux: a `Mutex`, and time from `CLOCK_MONOTONIC` or, in tests and the
/// simulator, a `ManualClock`.
public typealias ConcurrentMachine<State: MachineSymbol, Event: MachineSymbol, Context, Clock: MachineClock> =
    SharedMachine<State, Event, Context, RuntimeObservers<State, Event>, MutexLock, Clock>
