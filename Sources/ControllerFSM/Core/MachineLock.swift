/// Mutual exclusion, as the core needs it. The core cannot use `Synchronization.Mutex` itself
/// (Embedded Swift lacks it) and cannot take an existential, so `SharedMachine` is generic over
/// this protocol; `MutexLock` is the Linux implementation, a microcontroller port brings its own
/// (e.g. masking interrupts).
public protocol MachineLock: AnyObject, Sendable {
    init()
    /// Runs `body` holding the lock, waiting for it if another thread holds it.
    func withLock<Result>(_ body: () -> Result) -> Result
    /// Runs `body` holding the lock if it is free; returns `nil` at once, without running
    /// `body`, if it is not.
    func withLockIfAvailable<Result>(_ body: () -> Result) -> Result?
}
