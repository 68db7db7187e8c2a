import Synchronization

/// Failures a test arms for one system call of the runtime's: each of the next `count` calls
/// fails with the armed errno. With nothing armed, which is always outside tests, asking costs
/// one atomic load.
final class InjectedFailure: Sendable {
    private let remaining = Atomic<Int>(0)
    private let code = Atomic<Int32>(0)

    /// Makes the next `count` calls fail with `errno`.
    func arm(errno: Int32, count: Int = 1) {
        code.store(errno, ordering: .relaxed)
        remaining.store(count, ordering: .releasing)
    }

    func disarm() { remaining.store(0, ordering: .releasing) }

    /// How many armed failures are still to be taken: a test's check that a call was made.
    var pending: Int { remaining.load(ordering: .acquiring) }

    /// The errno this call fails with, if a failure is armed.
    func take() -> Int32? {
        var left = remaining.load(ordering: .acquiring)
        while left > 0 {
            let (exchanged, seen) = remaining.compareExchange(
                expected: left, desired: left - 1, ordering: .acquiringAndReleasing)
            if exchanged { return code.load(ordering: .relaxed) }
            left = seen
        }
        return nil
    }
}
