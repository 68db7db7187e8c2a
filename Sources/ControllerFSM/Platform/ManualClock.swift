import Synchronization

/// A clock that moves only when told to: tests and the simulator run in virtual time with it,
/// deterministically and as fast as the CPU allows.
public final class ManualClock: MachineClock {
    @usableFromInline let current: Atomic<Int64>

    public init(start: MachineInstant = .zero) {
        current = Atomic(start.nanoseconds)
    }

    // Inlinable: a machine reads the clock on every `send`, and a call cost more than the load.
    @inlinable
    public func now() -> MachineInstant {
        MachineInstant(nanoseconds: current.load(ordering: .acquiring))
    }

    /// Moves time forward by `duration` (never backwards).
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "ManualClock cannot move backwards (asked to advance by \(duration))")
        current.add(duration.nanosecondCount, ordering: .releasing)
    }

    /// Sets the time to `instant`, which must not be earlier than the current time.
    public func set(to instant: MachineInstant) {
        let old = current.exchange(instant.nanoseconds, ordering: .acquiringAndReleasing)
        precondition(old <= instant.nanoseconds, "ManualClock cannot move backwards (from \(old) ns to \(instant.nanoseconds) ns)")
    }
}
