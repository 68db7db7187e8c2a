import Synchronization

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

/// A `SharedMachine` on Linux: a `Mutex`, and time from `CLOCK_MONOTONIC` or, in tests and the
/// simulator, a `ManualClock`.
public typealias ConcurrentMachine<State: MachineSymbol, Event: MachineSymbol, Context, Clock: MachineClock> =
    SharedMachine<State, Event, Context, MutexLock, Clock>
