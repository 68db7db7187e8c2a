import Foundation

/// A value shared between threads behind a lock. `NSLock` is a pthread mutex, which
/// ThreadSanitizer understands (the standard library's futex-based `Mutex` it does not, see
/// scripts/sanitize.sh); the store's lock is taken once per batch, so its cost does not matter.
final class Guarded<Value>: @unchecked Sendable {
    // Safety: `value` is read and written only between `lock.lock()` and `lock.unlock()`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
