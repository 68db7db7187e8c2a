/// Work a state does: on entry, on exit, or as a row's action. It may change the context and use
/// the effects (send events, start and cancel timers).
public typealias MachineAction<State: MachineSymbol, Event: MachineSymbol, Context> =
    @Sendable (inout Context, inout Effects<State, Event>) -> Void

/// A condition on the context that must hold for a row to be taken. Its label is what diagrams
/// and traces show.
public struct Guard<Context> {
    public let label: String
    public let condition: @Sendable (Context) -> Bool

    public init(_ label: String, _ condition: @escaping @Sendable (Context) -> Bool) {
        self.label = label
        self.condition = condition
    }
}

/// The whole behaviour of one state, written in one block: its entry and exit work, every event
/// it answers, and where each one takes it.
///
/// ```swift
/// definition.state(.unlocked) { s in
///     s.onEntry { c, fx in c.relay.release(); fx.startTimer(.relock, after: .seconds(5), sending: .timeout) }
///     s.onExit { _, fx in fx.cancelTimer(.relock) }
///     s.on(.coin) { c, fx in c.credit += 1; fx.startTimer(.relock, after: .seconds(5), sending: .timeout) }
///     s.on(.push, when: Guard("credit > 1") { $0.credit > 1 }) { c, _ in c.credit -= 1 }
///     s.on(.push, to: .locked) { c, _ in c.credit = 0 }
/// }
/// ```
///
/// Several rows may answer one event; they are tried in the order written and the first whose
/// guard holds is taken, so an unguarded row must come last.
public struct StateBlock<State: MachineSymbol, Event: MachineSymbol, Context> {
    public let state: State
    let location: SourceLocation
    var entry: MachineAction<State, Event, Context>?
    var exit: MachineAction<State, Event, Context>?
    var rows: [RowSpec<State, Event, Context>] = []
    /// A second `onEntry` or `onExit`, reported when the definition is compiled.
    var problems: [DefinitionProblem] = []
    private var entryLocation: SourceLocation?
    private var exitLocation: SourceLocation?

    init(state: State, location: SourceLocation) {
        self.state = state
        self.location = location
    }

    /// Work done every time the machine enters this state (not on internal transitions).
    public mutating func onEntry(
        file: StaticString = #fileID, line: UInt = #line,
        _ action: @escaping MachineAction<State, Event, Context>
    ) {
        let location = SourceLocation(file: file, line: line)
        if let first = entryLocation { return refuseSecond("entry", at: location, first: first) }
        entry = action
        entryLocation = location
    }

    /// Work done every time the machine leaves this state (not on internal transitions).
    public mutating func onExit(
        file: StaticString = #fileID, line: UInt = #line,
        _ action: @escaping MachineAction<State, Event, Context>
    ) {
        let location = SourceLocation(file: file, line: line)
        if let first = exitLocation { return refuseSecond("exit", at: location, first: first) }
        exit = action
        exitLocation = location
    }

    private mutating func refuseSecond(_ work: String, at location: SourceLocation, first: SourceLocation) {
        problems.append(DefinitionProblem(
            kind: .duplicateWork, state: state.name, event: nil,
            message: "\(location): state \(state.name) has \(work) work twice (the first at \(first)); put it in one on\(work == "entry" ? "Entry" : "Exit")"))
    }

    /// Answers `event`: when `guard` holds (or always, without one), runs `action` and moves to
    /// `target` — exit work, action, entry work. Without a target the transition is internal:
    /// only the action runs. A target equal to this state re-enters it (exit and entry run).
    public mutating func on(
        _ event: Event,
        when guard: Guard<Context>? = nil,
        to target: State? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ action: MachineAction<State, Event, Context>? = nil
    ) {
        rows.append(RowSpec(
            event: event, guard: `guard`, target: target, action: action,
            location: SourceLocation(file: file, line: line)
        ))
    }
}

/// A row as written, before compilation.
struct RowSpec<State: MachineSymbol, Event: MachineSymbol, Context> {
    var event: Event
    var `guard`: Guard<Context>?
    var target: State?
    var action: MachineAction<State, Event, Context>?
    var location: SourceLocation
}
