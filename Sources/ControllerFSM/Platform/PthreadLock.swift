#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The Linux `MachineLock`: a `pthread_mutex_t` at a stable address (a mutex must not move, so it
/// lives in memory allocated once, not inline in a Swift value).
public final class PthreadLock: MachineLock, @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed with error \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "pthread_mutex_lock failed with error \(status)")
    }

    public func unlock() {
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "pthread_mutex_unlock failed with error \(status)")
    }

    public func tryLock() -> Bool {
        pthread_mutex_trylock(mutex) == 0
    }
}

/// A `SharedMachine` on Linux: a pthread mutex, and time from `CLOCK_MONOTONIC` or, in tests and
/// the simulator, a `ManualClock`.
public typealias ConcurrentMachine<State: MachineSymbol, Event: MachineSymbol, Context, Clock: MachineClock> =
    SharedMachine<State, Event, Context, PthreadLock, Clock>
