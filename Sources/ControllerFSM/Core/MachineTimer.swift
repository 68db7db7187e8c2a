/// One of a machine's timer slots. Every machine has `MachineTimer.slotCount` of them, kept
/// inside the machine; an action starts, restarts or cancels one, and its expiry arrives as an
/// ordinary event.
///
/// ```swift
/// extension MachineTimer { static let relock = MachineTimer(0) }
/// ```
public struct MachineTimer: Hashable, Sendable {
    /// How many timers one machine may use. The slots live inline in the machine, so their number
    /// is fixed at compile time: starting or cancelling one touches no heap storage.
    public static let slotCount = TimerSlots<NoEvent>.count

    public let slot: Int

    public init(_ slot: Int) {
        precondition(
            (0..<Self.slotCount).contains(slot),
            "timer slot \(slot) does not exist: a machine has slots 0...\(Self.slotCount - 1)")
        self.slot = slot
    }
}

/// A machine's timer slots, inline. The literal is `MachineTimer.slotCount`.
@usableFromInline
typealias TimerSlots<Event: MachineSymbol> = InlineArray<8, TimerSlot<Event>>

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

/// An event type with one case, to name `TimerSlots`' count without a machine's own events.
@usableFromInline
enum NoEvent: Int, MachineSymbol {
    case none
    @usableFromInline var name: String { "none" }
}
