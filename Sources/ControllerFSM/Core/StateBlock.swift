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
///     s.onEntry { c, fx in c.relay.release(); fx.startTimer(GateTimer.relock, after: .seconds(5), sending: .timeout) }
///     s.onExit { _, fx in fx.cancelTimer(GateTimer.relock) }
///     s.on(.coin) { c, fx in c.credit += 1; fx.startTimer(GateTimer.relock, after: .seconds(5), sending: .timeout) }
///     s.on(.push, when: Guard("credit > 1") { $0.credit > 1 }) { c, _ in c.credit -= 1 }
///     s.on(.push, to: .locked) { c, _ in c.credit = 0 }
/// }
/// ```
///
/// Several rows may answer one event; they are tried in the order written and the first whose
/// guard holds is taken, so an unguarded row must come last.
public struct StateBlock<State: MachineSymbol, Event: MachineSymbol, Context> {
    public let state: State
    /// The superstate this state is inside, or `nil` at the top.
    public let parent: State?
    let location: SourceLocation
    var entry: MachineAction<State, Event, Context>?
    var exit: MachineAction<State, Event, Context>?
    /// What the entry and exit work declare they send (`sends:`); nil when undeclared.
    var entrySends: [Event]?
    var exitSends: [Event]?
    var rows: [RowSpec<State, Event, Context>] = []
    /// A superstate's initial child, chosen when the superstate itself is the target: the first
    /// whose guard holds, in the order written (the last one unguarded).
    var initials: [InitialSpec<State, Event, Context>] = []
    /// A second `onEntry` or `onExit`, reported when the definition is compiled.
    var problems: [DefinitionProblem] = []
    /// A final state: entering it completes its superstate (or, at the top, the machine).
    var isFinal = false
    /// For a superstate: the event sent (queued, as `Effects.send` does) when one of its final
    /// states is entered (for parallel regions: when every region has entered one).
    var doneEvent: Event?
    /// Parallel regions: every state inside is active at once (`MachineDefinition.parallel`).
    var isParallel = false
    private var entryLocation: SourceLocation?
    private var exitLocation: SourceLocation?

    init(state: State, parent: State?, location: SourceLocation) {
        self.state = state
        self.parent = parent
        self.location = location
    }

    /// For a superstate: the descendant entered when the superstate itself is entered as a
    /// target (or at start-up). Several may be given, each but the last with a guard: the first
    /// whose guard holds is taken, so a controller can start in the state its inputs say
    /// (`s.initial(.doorOpen, when: Guard("door open") { $0.doorOpen })`, then `s.initial(.idle)`).
    /// The target may be a child or a deeper descendant.
    ///
    /// `action` runs when the initial state is taken: after this state's entry work, before the
    /// entry work of the states it enters (SCXML's `<initial>` transition content).
    public mutating func initial(
        _ target: State, when guard: Guard<Context>? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ action: MachineAction<State, Event, Context>? = nil
    ) {
        initials.append(InitialSpec(targets: [target], guard: `guard`, action: action, location: SourceLocation(file: file, line: line)))
    }

    /// An initial configuration of several states, one in each of some parallel regions inside
    /// this state (the regions not named start in their own initial states).
    public mutating func initial(
        _ targets: [State], when guard: Guard<Context>? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ action: MachineAction<State, Event, Context>? = nil
    ) {
        let location = SourceLocation(file: file, line: line)
        if targets.isEmpty { return refuseEmptyTargets("initial", at: location) }
        initials.append(InitialSpec(targets: targets, guard: `guard`, action: action, location: location))
    }

    mutating func refuseEmptyTargets(_ what: String, at location: SourceLocation) {
        problems.append(DefinitionProblem(
            kind: .badTarget, state: state.name, event: nil,
            message: "\(location): state \(state.name) has \(what) with an empty list of targets; name at least one state (a row without a target is written without `to:`)"))
    }

    /// Work done every time the machine enters this state (not on internal transitions).
    ///
    /// `sends`, when given, declares the events the work sends each time it runs, in order, and
    /// that it sends no others: `compile()` then refuses a loop those sends make certain (an
    /// entry sending the event its own state answers by re-entering itself, with no guard to
    /// break it), which would otherwise be ended only at run time, at
    /// ``MachineLimits/maximumInternalEvents``. Work without a declaration is not looked into.
    public mutating func onEntry(
        sends: [Event]? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ action: @escaping MachineAction<State, Event, Context>
    ) {
        let location = SourceLocation(file: file, line: line)
        if let first = entryLocation { return refuseSecond("entry", at: location, first: first) }
        entry = action
        entrySends = sends
        entryLocation = location
    }

    /// Work done every time the machine leaves this state (not on internal transitions).
    /// `sends` declares what it sends, as for ``onEntry(sends:file:line:_:)``.
    public mutating func onExit(
        sends: [Event]? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ action: @escaping MachineAction<State, Event, Context>
    ) {
        let location = SourceLocation(file: file, line: line)
        if let first = exitLocation { return refuseSecond("exit", at: location, first: first) }
        exit = action
        exitSends = sends
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
    ///
    /// In a superstate, a row answers `event` in every state inside it that does not answer it
    /// itself (or whose guards are all false). A row whose target is inside this state is
    /// `.local` unless told otherwise: this state is neither left nor re-entered, only the states
    /// below it are. `.external` leaves and re-enters it (SCXML's default).
    ///
    /// `sends` declares what the action sends, as for ``onEntry(sends:file:line:_:)``.
    public mutating func on(
        _ event: Event,
        when guard: Guard<Context>? = nil,
        to target: State? = nil,
        kind: TransitionKind = .local,
        sends: [Event]? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ action: MachineAction<State, Event, Context>? = nil
    ) {
        addRow(event, `guard`, target.map { [$0] } ?? [], kind, action, SourceLocation(file: file, line: line), sends: sends)
    }

    /// Answers `event` by moving to several states at once, one in each of some parallel
    /// regions (the regions not named start in their own initial states).
    public mutating func on(
        _ event: Event,
        when guard: Guard<Context>? = nil,
        to targets: [State],
        kind: TransitionKind = .local,
        sends: [Event]? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ action: MachineAction<State, Event, Context>? = nil
    ) {
        let location = SourceLocation(file: file, line: line)
        if targets.isEmpty { return refuseEmptyTargets("a row for \(event.name)", at: location) }
        addRow(event, `guard`, targets, kind, action, location, sends: sends)
    }

    /// Every row, with or without an event, one target or several, is written here.
    mutating func addRow(
        _ event: Event?, _ guard: Guard<Context>?, _ targets: [State], _ kind: TransitionKind,
        _ action: MachineAction<State, Event, Context>?, _ location: SourceLocation, sends: [Event]? = nil
    ) {
        rows.append(RowSpec(event: event, guard: `guard`, targets: targets, kind: kind, action: action, location: location, sends: sends))
    }
}

extension StateBlock {
    /// An eventless row: taken, without any event, as soon as the machine is in this state (or
    /// a state inside it) and `guard` holds — after the start and after every step, again and
    /// again until no eventless row's guard holds (at most ``MachineLimits/maximumMicrosteps``
    /// per event). A row that could be taken for ever (unguarded, or a loop of unguarded rows)
    /// is refused by `compile()`.
    ///
    /// ```swift
    /// s.always(when: Guard("no credit") { $0.credit == 0 }, to: .locked)
    /// ```
    public mutating func always(
        when guard: Guard<Context>? = nil,
        to target: State? = nil,
        kind: TransitionKind = .local,
        file: StaticString = #fileID, line: UInt = #line,
        _ action: MachineAction<State, Event, Context>? = nil
    ) {
        addRow(nil, `guard`, target.map { [$0] } ?? [], kind, action, SourceLocation(file: file, line: line))
    }

    /// An eventless row to several states, one in each of some parallel regions.
    public mutating func always(
        when guard: Guard<Context>? = nil,
        to targets: [State],
        kind: TransitionKind = .local,
        file: StaticString = #fileID, line: UInt = #line,
        _ action: MachineAction<State, Event, Context>? = nil
    ) {
        let location = SourceLocation(file: file, line: line)
        if targets.isEmpty { return refuseEmptyTargets("an eventless row", at: location) }
        addRow(nil, `guard`, targets, kind, action, location)
    }
}

/// Whether a superstate's row to a state inside it leaves and re-enters the superstate.
public enum TransitionKind: Sendable, Equatable {
    /// The superstate stays entered: only the states inside it are exited and entered.
    case local
    /// The superstate is exited and entered again, its exit and entry work running.
    case external
}

/// A superstate's initial child as written.
struct InitialSpec<State: MachineSymbol, Event: MachineSymbol, Context> {
    /// One state, or one in each of some parallel regions.
    var targets: [State]
    var `guard`: Guard<Context>?
    var action: MachineAction<State, Event, Context>?
    var location: SourceLocation
    var target: State { targets[0] }
}

/// A row as written, before compilation.
struct RowSpec<State: MachineSymbol, Event: MachineSymbol, Context> {
    /// nil for an eventless row (`always`).
    var event: Event?
    var `guard`: Guard<Context>?
    /// Empty for a targetless (internal) row; several only into parallel regions.
    var targets: [State]
    var kind: TransitionKind = .local
    var action: MachineAction<State, Event, Context>?
    var location: SourceLocation
    /// What the action declares it sends (`sends:`); nil when undeclared.
    var sends: [Event]? = nil
    /// The first target: the only one outside parallel regions.
    var target: State? { targets.first }
}
