/// What a machine tells about each dispatch, chosen at compile time: the machine is generic over
/// its observer, so a machine built with `Unobserved` has no observer code in its dispatch at all
/// (the calls are empty and inlined away), and one built with `TraceObserver` pays for the trace
/// write only. QP/C's `Q_SPY` switch, as a type.
///
/// `StateMachine` uses `RuntimeObservers` (hooks and a trace that can be set while it runs);
/// `BareMachine` uses `Unobserved`; `TracedMachine` uses `TraceObserver`.
public protocol MachineObserver<State, Event> {
    associatedtype State: MachineSymbol
    associatedtype Event: MachineSymbol
    /// Whether dispatch tells this observer anything now. When `false`, dispatch builds no
    /// record; for `Unobserved` it is a constant, so the check itself compiles away.
    var isObserving: Bool { get }
    /// Before the rows for (`state`, `event`) are looked up.
    mutating func willDispatch(_ event: Event, in state: State)
    /// After the event has been handled or ignored.
    mutating func didDispatch(_ record: DispatchRecord<State, Event>)
}

/// No observer: nothing is recorded and nothing is called.
public struct Unobserved<State: MachineSymbol, Event: MachineSymbol>: MachineObserver {
    @inlinable public init() {}
    @inlinable public var isObserving: Bool { false }
    @inlinable public func willDispatch(_ event: Event, in state: State) {}
    @inlinable public func didDispatch(_ record: DispatchRecord<State, Event>) {}
}

/// Every dispatch recorded in a ring another thread drains; nothing else.
public struct TraceObserver<State: MachineSymbol, Event: MachineSymbol>: MachineObserver {
    public let ring: TraceRing<State, Event>

    @inlinable public init(_ ring: TraceRing<State, Event>) { self.ring = ring }
    @inlinable public var isObserving: Bool { true }
    @inlinable public func willDispatch(_ event: Event, in state: State) {}
    // Always inlined, with `record`, so the record's fields are stored straight into the ring.
    @inlinable @inline(__always)
    public func didDispatch(_ record: DispatchRecord<State, Event>) { ring.record(record) }
}

/// Hooks and a trace that can be set and changed while the machine runs: what `StateMachine`
/// uses. A machine with neither pays one branch per event for them and builds no record.
public struct RuntimeObservers<State: MachineSymbol, Event: MachineSymbol>: MachineObserver {
    public var hooks = MachineHooks<State, Event>() {
        didSet { hasHooks = hooks.isSet }
    }
    /// Where every dispatch is recorded, if anywhere.
    public var trace: TraceRing<State, Event>?
    /// `hooks.isSet`, kept so that the per-event check is one load, not three optional checks.
    @usableFromInline var hasHooks = false

    public init(trace: TraceRing<State, Event>? = nil) {
        self.trace = trace
    }

    @inlinable public var isObserving: Bool { hasHooks || trace != nil }

    // Mutating, here and below, so that the observer is passed by reference: called
    // non-mutating from the machine's mutating dispatch, it was copied (its closures retained)
    // on every event.
    @inlinable
    public mutating func willDispatch(_ event: Event, in state: State) {
        if hasHooks, let beforeEvent = hooks.beforeEvent { beforeEvent(state, event) }
    }

    @inlinable
    public mutating func didDispatch(_ record: DispatchRecord<State, Event>) {
        trace?.record(record)
        if hasHooks { callHooks(after: record) }
    }

    /// Out of line, so a machine with a trace and no hooks carries none of their code.
    @inlinable @inline(never)
    mutating func callHooks(after record: DispatchRecord<State, Event>) {
        hooks.afterEvent?(record)
        if record.outcome == .transitioned { hooks.transitionObserver?(record.from, record.event, record.to) }
    }
}
