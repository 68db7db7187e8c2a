/// A mutual-exclusion lock, as the core needs one. The core cannot use `Synchronization.Mutex`
/// (Embedded Swift lacks it) and cannot take an existential, so `SharedMachine` is generic over
/// this protocol; `PthreadLock` is the Linux implementation, a microcontroller port brings its
/// own (e.g. masking interrupts).
public protocol MachineLock: AnyObject, Sendable {
    init()
    func lock()
    func unlock()
    /// Takes the lock if it is free; never waits.
    func tryLock() -> Bool
}

extension MachineLock {
    @inlinable
    func withLock<Result>(_ body: () -> Result) -> Result {
        lock()
        defer { unlock() }
        return body()
    }
}
