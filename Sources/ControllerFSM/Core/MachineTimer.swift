/// A machine's timers, named by one of the user's own enums: one case per timer, `Int` raw values
/// in declaration order, as for states and events. An action starts, restarts or cancels one, and
/// its expiry arrives as an ordinary event.
///
/// ```swift
/// enum DoorTimer: Int, MachineTimer { case relock, alarm }
/// ...
/// s.onEntry { c, fx in fx.startTimer(DoorTimer.relock, after: .seconds(5), sending: .timeout) }
/// ```
///
/// A timer's case is its slot: the slots live inline in the machine, `slotCount` of them, so
/// starting or cancelling one touches no heap storage, and no count has to be kept in step with
/// the enum by hand. An enum with more cases than slots is refused when the machine first uses
/// one of them, with a message naming the case.
public protocol MachineTimer: MachineSymbol {}

extension MachineTimer {
    /// How many timers one machine may have: an enum's cases must be fewer or as many. Fixed at
    /// compile time, because the slots are an `InlineArray`.
    @inlinable public static var slotCount: Int { TimerSlots<NoEvent>.count }

    /// The slot this timer uses; stops the program, naming the case, when its raw value is not a
    /// slot: the enum has more cases than slots, or gives a case a raw value of its own (`= 9`,
    /// `= -1`). (`fatalError`, not `precondition`: a release build keeps its message.) One
    /// unsigned comparison covers both ends, and folds away for a constant timer.
    @inlinable
    var slot: Int {
        if UInt(bitPattern: index) >= UInt(Self.slotCount) {
            fatalError("timer .\(name) has raw value \(index), but a machine's timer slots are 0 to \(Self.slotCount - 1): give it \(Self.slotCount) timers or fewer, with the default raw values (0, 1, 2, ... in declaration order)")
        }
        return index
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
