/// A value shared between threads behind a ``MutexLock``: the standard library's `Mutex` in
/// normal builds, a pthread mutex in ThreadSanitizer builds (`CONTROLLERFSM_PTHREAD_LOCK`), which
/// TSan can see — with `Mutex` used directly it reports every access as a race.
public final class Guarded<Value>: @unchecked Sendable {
    // Safety: `value` is read and written only inside `lock.withLock`.
    private let lock = MutexLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = lock.withLock {
            do throws(Failure) {
                return .success(try body(&value))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
