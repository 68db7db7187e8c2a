/// One of a machine's timer slots. A machine has a fixed number of them, chosen when it is
/// built; an action starts, restarts or cancels one, and its expiry arrives as an ordinary event.
///
/// ```swift
/// extension MachineTimer { static let relock = MachineTimer(0) }
/// ```
public struct MachineTimer: Hashable, Sendable {
    public let slot: Int

    public init(_ slot: Int) {
        precondition(slot >= 0, "a timer slot is a non-negative index, got \(slot)")
        self.slot = slot
    }
}

/// The bookkeeping of one timer slot. An expiry is taken from the slot only when it is due and
/// still armed, so a restart (new deadline) or a cancel (disarmed) voids the old one.
@usableFromInline
struct TimerSlot<Event: MachineSymbol> {
    @usableFromInline var deadline: Int64
    @usableFromInline var armed: Bool
    @usableFromInline var event: Event

    /// A stopped slot.
    @usableFromInline
    init(event: Event) {
        deadline = .max
        armed = false
        self.event = event
    }

    /// A running slot: `event` arrives at `deadline`.
    @inlinable
    init(event: Event, deadline: Int64) {
        self.deadline = deadline
        armed = true
        self.event = event
    }
}
