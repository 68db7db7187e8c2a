/// A value shared between threads behind a ``MutexLock``, whose atomic lock word
/// ThreadSanitizer sees (the standard library's `Mutex` sleeps on a futex TSan cannot see, and
/// used directly it reports every access as a race).
///
/// `withLock` is inlinable so every caller gets it specialised for its own value and result
/// types. Called unspecialised from another module, the generic `Result` it builds needs its
/// type metadata made at run time — a heap allocation the first time each combination is used,
/// which is on the event loop's thread for the daemon's status hub.
public final class Guarded<Value>: @unchecked Sendable {
    // Safety: `value` is read and written only inside `lock.withLock`.
    @usableFromInline let lock = MutexLock()
    @usableFromInline var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    @inlinable
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
