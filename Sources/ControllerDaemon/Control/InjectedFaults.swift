import ControllerFSM
import Synchronization

/// Failures armed by tests, each taken once by the next matching call.
///
/// Every call in ``Syscalls`` asks here first, some on the event loop's thread (the systemd
/// watchdog): with nothing armed, which is always outside tests,
/// the answer is one atomic load, without the lock.
final class InjectedFaults: @unchecked Sendable {
    // Safety: `armed` is read and written only under `lock`; `count` is an atomic.
    private let lock = MutexLock()
    private var armed: [Syscalls.Call: [Int32]] = [:]
    /// How many failures are armed in all; changed under `lock`, read without it.
    private let count = Atomic<Int>(0)

    /// Makes the next `times` calls of `call` fail with `code`.
    func arm(_ call: Syscalls.Call, errno code: Int32, count times: Int = 1) {
        lock.withLock {
            armed[call, default: []] += Array(repeating: code, count: times)
            count.add(times, ordering: .releasing)
        }
    }

    func disarmAll() {
        lock.withLock {
            armed = [:]
            count.store(0, ordering: .releasing)
        }
    }

    /// The errno for this call of `call`, if a failure was armed for it.
    func take(_ call: Syscalls.Call) -> Int32? {
        guard count.load(ordering: .acquiring) > 0 else { return nil }
        return lock.withLock {
            guard var codes = armed[call], !codes.isEmpty else { return nil }
            let code = codes.removeFirst()
            armed[call] = codes
            count.subtract(1, ordering: .releasing)
            return code
        }
    }

    /// How many failures of `call` are still armed: a test's check that a caller made the call
    /// once, not again and again.
    func pending(_ call: Syscalls.Call) -> Int {
        lock.withLock { armed[call]?.count ?? 0 }
    }
}
