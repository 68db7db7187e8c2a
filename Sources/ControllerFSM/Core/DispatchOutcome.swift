/// What a dispatch did with an event: exactly one of three things.
public enum DispatchOutcome: UInt8, Sendable, CustomStringConvertible {
    /// A row matched and the machine moved to a state (possibly re-entering its own): exit work,
    /// the action and entry work ran.
    case transitioned
    /// A row without a target matched: only its action ran; no exit or entry work.
    case handledInternally
    /// No row for (state, event), or no row's guard held: nothing changed.
    case ignored

    public var description: String {
        switch self {
        case .transitioned: "transitioned"
        case .handledInternally: "internal"
        case .ignored: "ignored"
        }
    }

    /// The event was taken by a row (with or without a transition).
    @inlinable public var wasTaken: Bool { self != .ignored }
}

/// What happened to an event sent to a `SharedMachine`: this thread dispatched it, or it waits
/// for the thread that is dispatching, or (`trySend` only) it was refused.
public enum SendOutcome: Equatable, Sendable, CustomStringConvertible {
    /// This thread ran the event; what the dispatch did with it.
    case dispatched(DispatchOutcome)
    /// Another thread was dispatching; the event waits in the inbox and will run after the events
    /// before it.
    case queued
    /// `trySend` found the inbox full; the event was not taken (and the refusal was counted).
    case refused

    public var description: String {
        switch self {
        case .dispatched(let outcome): outcome.description
        case .queued: "queued"
        case .refused: "refused"
        }
    }
}

/// One dispatched event, as the trace and the after-event hook see it.
public struct DispatchRecord<State: MachineSymbol, Event: MachineSymbol>: Sendable {
    public var time: MachineInstant
    public var from: State
    public var event: Event
    /// The state after dispatch (equal to `from` unless the outcome is `.transitioned`).
    public var to: State
    public var outcome: DispatchOutcome
    /// Which row was taken: its position among the table's candidate rows (meaningless when
    /// the outcome is `.ignored`).
    /// ``TransitionTable/rowOf(_:)`` says where it was written (a superstate's row, the fire
    /// alarm answered once around every state). Kept as a number so that recording it costs
    /// dispatch one store.
    public var candidate: Int32

    @inlinable
    public init(time: MachineInstant, from: State, event: Event, to: State, outcome: DispatchOutcome, candidate: Int32 = -1) {
        self.time = time
        self.from = from
        self.event = event
        self.to = to
        self.outcome = outcome
        self.candidate = candidate
    }
}
