/// Code the machine calls around every dispatch, on the dispatching thread. Hooks must be quick
/// and must not block: dispatch is serialised behind them.
public struct MachineHooks<State: MachineSymbol, Event: MachineSymbol> {
    /// Before the rows for (state, event) are looked up.
    public var beforeEvent: ((State, Event) -> Void)?
    /// After the event has been handled (or ignored), with what happened.
    public var afterEvent: ((DispatchRecord<State, Event>) -> Void)?
    /// After each transition to a state (exit work, action and entry work done).
    public var transitionObserver: ((_ from: State, _ event: Event, _ to: State) -> Void)?

    public init() {}

    /// Whether any hook is set.
    @usableFromInline var isSet: Bool { beforeEvent != nil || afterEvent != nil || transitionObserver != nil }
}

/// Counts kept by every machine; reading them costs nothing on the dispatch path.
public struct MachineStatistics: Sendable, Equatable {
    /// Events dispatched, including timer expiries and events sent by actions: each was
    /// answered with a transition, answered internally, or ignored. (Derived, so dispatch counts
    /// each event once.)
    public var dispatched: Int { transitions + internalTransitions + ignored }
    public var transitions = 0
    public var internalTransitions = 0
    public var ignored = 0
    /// Events an action sent while the run-to-completion queue was full, and which were lost.
    public var droppedSends = 0
    /// Eventless rows taken (after the start or an event; not counted in `dispatched`, which
    /// counts events).
    public var eventlessSteps = 0
    /// Times an event's eventless rows were still being taken after
    /// ``MachineLimits/maximumMicrosteps`` of them, and the machine stopped taking them.
    public var microstepLimitHits = 0
    /// Steps that reached one of ``MachineLimits``' bounds and were ended there
    /// (``ObservedMachine/lastUnsettledStep`` names the last one's cycle).
    public var unsettledSteps = 0
    /// Events still queued when an unsettled step was ended, and discarded with it.
    public var discardedEvents = 0

    public init() {}
}
