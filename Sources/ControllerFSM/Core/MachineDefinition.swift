/// A machine as its author writes it: one block per state. `compile()` turns it, once, into the
/// fixed-size `TransitionTable` that dispatch uses.
///
/// ```swift
/// var definition = MachineDefinition<Door, DoorEvent, DoorContext>(initial: .closed)
/// definition.state(.closed) { s in
///     s.on(.open, to: .open) { c, _ in c.openings += 1 }
/// }
/// definition.state(.open) { s in
///     s.on(.close, to: .closed)
/// }
/// let table = try definition.compile()
/// ```
///
/// States may nest: a superstate's block holds what all the states inside it share (the fire
/// alarm answered once), and names the child it starts in.
///
/// ```swift
/// definition.state(.working) { s in
///     s.initial(.idle)
///     s.on(.alarm, to: .alarmed)        // answered in idle and busy alike
/// }
/// definition.state(.idle, in: .working) { s in s.on(.start, to: .busy) }
/// definition.state(.busy, in: .working) { s in s.on(.done, to: .idle) }
/// definition.history(.resume, of: .working, default: .idle)
/// definition.state(.alarmed) { s in s.on(.clear, to: .resume) }  // back where it was
/// ```
public struct MachineDefinition<State: MachineSymbol, Event: MachineSymbol, Context> {
    public let initial: State
    var blocks: [StateBlock<State, Event, Context>] = []
    var histories: [HistorySpec<State, Event, Context>] = []

    public init(initial: State) {
        self.initial = initial
    }

    /// Writes the whole behaviour of `state` in `body`; `parent` is the superstate it is
    /// inside (nil: at the top).
    public mutating func state(
        _ state: State,
        in parent: State? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ body: (inout StateBlock<State, Event, Context>) -> Void
    ) {
        var block = StateBlock<State, Event, Context>(state: state, parent: parent, location: SourceLocation(file: file, line: line))
        body(&block)
        blocks.append(block)
    }

    /// Writes a superstate whose completion is an event: when one of its final states
    /// (``final(_:in:file:line:_:)``) is entered, `done` is sent (queued after what the entry
    /// work sent, as SCXML's `done.state.ID`), for a row of this state or one around it to answer.
    public mutating func state(
        _ state: State,
        in parent: State? = nil,
        whenDone done: Event,
        file: StaticString = #fileID, line: UInt = #line,
        _ body: (inout StateBlock<State, Event, Context>) -> Void
    ) {
        var block = StateBlock<State, Event, Context>(state: state, parent: parent, location: SourceLocation(file: file, line: line))
        block.doneEvent = done
        body(&block)
        blocks.append(block)
    }

    /// Writes a final state: entering it completes its superstate, which then sends its done
    /// event (`state(_:in:whenDone:_:)`); a final state at the top ends the machine
    /// (`isFinished`), whose events are then ignored. A final state answers no event itself:
    /// its block may have entry and exit work only.
    public mutating func final(
        _ state: State,
        in parent: State? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ body: (inout StateBlock<State, Event, Context>) -> Void = { _ in }
    ) {
        var block = StateBlock<State, Event, Context>(state: state, parent: parent, location: SourceLocation(file: file, line: line))
        block.isFinal = true
        body(&block)
        blocks.append(block)
    }

    /// Writes a state of parallel regions: every state directly inside it is a region, and all
    /// of them are active at once, each in one of its own states. An event is offered to every
    /// region (in the order of the state enum), and the rows it selects are all taken unless
    /// they conflict: SCXML's rules — a row leaving a state another selected row leaves is
    /// dropped, unless its source is inside the other's, which it then replaces. When every
    /// region has entered a final state, `done` is sent.
    ///
    /// ```swift
    /// definition.parallel(.doors, whenDone: .bothClosed) { s in
    ///     s.on(.fire, to: .evacuate)            // leaves both regions
    /// }
    /// definition.state(.outer, in: .doors) { s in s.initial(.outerOpen) }
    /// definition.state(.inner, in: .doors) { s in s.initial(.innerClosed) }
    /// ```
    public mutating func parallel(
        _ state: State,
        in parent: State? = nil,
        whenDone done: Event? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ body: (inout StateBlock<State, Event, Context>) -> Void
    ) {
        var block = StateBlock<State, Event, Context>(state: state, parent: parent, location: SourceLocation(file: file, line: line))
        block.isParallel = true
        block.doneEvent = done
        body(&block)
        blocks.append(block)
    }

    /// Declares `state` (a case of the state enum with no block of its own) as the memory of the
    /// superstate `parent`: a row whose target is `state` re-enters `parent` where it was when
    /// it was last left, or at `defaultTarget` (inside `parent`) the first time. Shallow history
    /// remembers the child of `parent` that was active (and enters it at its own initial state);
    /// `deep` remembers the innermost state. The memory lives in the machine, so a copy of a
    /// machine has its own.
    ///
    /// `action` runs when the default is taken, before it is entered (SCXML's history
    /// transition content). In parallel regions a history remembers every region's state.
    public mutating func history(
        _ state: State, of parent: State, deep: Bool = false, default defaultTarget: State,
        file: StaticString = #fileID, line: UInt = #line,
        _ action: MachineAction<State, Event, Context>? = nil
    ) {
        histories.append(HistorySpec(
            state: state, parent: parent, deep: deep, defaultTargets: [defaultTarget], action: action,
            location: SourceLocation(file: file, line: line)))
    }

    /// A history whose default is several states, one in each of some parallel regions.
    public mutating func history(
        _ state: State, of parent: State, deep: Bool = false, default defaultTargets: [State],
        file: StaticString = #fileID, line: UInt = #line,
        _ action: MachineAction<State, Event, Context>? = nil
    ) {
        histories.append(HistorySpec(
            state: state, parent: parent, deep: deep, defaultTargets: defaultTargets.isEmpty ? [parent] : defaultTargets,
            action: action, location: SourceLocation(file: file, line: line)))
    }

    /// Validates the definition and builds its transition table. Refuses, naming the state, the
    /// event and the source lines: a state without a block or with two, entry or exit work
    /// given twice, an event answered twice
    /// without a guard (or a row that can never run because an unguarded one precedes it), a
    /// state that nothing can reach, and enums whose raw values are not 0, 1, 2, … in order;
    /// for nested states, a parent chain that loops or nests deeper than
    /// ``MachineLimits/maximumDepth``, a superstate without an initial child (or one outside
    /// it, or guarded without an unguarded one last), and a history outside a superstate or
    /// whose default is not inside it.
    /// States with no way out and events no state answers are reported as `warnings`.
    public func compile() throws(MachineDefinitionError) -> TransitionTable<State, Event, Context> {
        try compile(tolerating: [])
    }

    /// `compile()`, with the problems of the kinds in `tolerated` reported as warnings instead:
    /// for a machine read from a document written elsewhere (an SCXML file may hold a state
    /// nothing reaches, or a row after an unguarded one), which must run as written. Only
    /// ``DefinitionProblem/Kind/unreachableState``, ``DefinitionProblem/Kind/unreachableRow``
    /// and ``DefinitionProblem/Kind/duplicateRow`` can be tolerated: the others leave no table
    /// to build. A tolerated dead row stays in the table, never taken, as SCXML says.
    public func compile(tolerating tolerated: Set<DefinitionProblem.Kind>) throws(MachineDefinitionError) -> TransitionTable<State, Event, Context> {
        let tolerable: Set<DefinitionProblem.Kind> = [.unreachableState, .unreachableRow, .duplicateRow]
        var problems: [DefinitionProblem] = []
        var toleratedWarnings: [String] = []
        func setAsideTolerated() {
            let kept = problems.filter { !(tolerated.contains($0.kind) && tolerable.contains($0.kind)) }
            toleratedWarnings += problems.filter { tolerated.contains($0.kind) && tolerable.contains($0.kind) }.map { $0.message }
            problems = kept
        }
        checkSymbolOrder(State.self, kind: "state", into: &problems)
        checkSymbolOrder(Event.self, kind: "event", into: &problems)
        if State.allCases.count > MachineLimits.maximumStates {
            problems.append(DefinitionProblem(
                kind: .tooManyStates, state: nil, event: nil,
                message: "the machine has \(State.allCases.count) states; at most \(MachineLimits.maximumStates) are allowed (MachineLimits.maximumStates): split it into machines that talk through events"))
        }
        if !problems.isEmpty { throw MachineDefinitionError(problems: problems) }

        let states = Array(State.allCases)
        var blockOfState = [Int](repeating: -1, count: states.count)
        var historyOfState = [Int](repeating: -1, count: states.count)
        for (position, history) in histories.enumerated() {
            if historyOfState[history.state.index] >= 0 {
                problems.append(DefinitionProblem(
                    kind: .duplicateState, state: history.state.name, event: nil,
                    message: "\(history.location): history \(history.state.name) is declared twice (the first at \(histories[historyOfState[history.state.index]].location))"))
            } else {
                historyOfState[history.state.index] = position
            }
        }
        for (position, block) in blocks.enumerated() {
            let existing = blockOfState[block.state.index]
            if existing >= 0 {
                problems.append(DefinitionProblem(
                    kind: .duplicateState, state: block.state.name, event: nil,
                    message: "\(block.location): state \(block.state.name) has a second block (the first is at \(blocks[existing].location)); write all of a state's behaviour in one block"))
            } else if historyOfState[block.state.index] >= 0 {
                problems.append(DefinitionProblem(
                    kind: .duplicateState, state: block.state.name, event: nil,
                    message: "\(block.location): \(block.state.name) is a history (declared at \(histories[historyOfState[block.state.index]].location)) and cannot have a block; a history only remembers where its superstate was"))
            } else {
                blockOfState[block.state.index] = position
            }
        }
        for state in states where blockOfState[state.index] < 0 && historyOfState[state.index] < 0 {
            problems.append(DefinitionProblem(
                kind: .missingState, state: state.name, event: nil,
                message: "state \(state.name) has no block; add definition.state(.\(state.name)) { … } (an empty block is fine for a state that answers nothing)"))
        }
        guard let hierarchy = buildHierarchy(blockOfState: blockOfState, historyOfState: historyOfState, into: &problems) else {
            throw MachineDefinitionError(problems: problems)
        }
        for block in blocks {
            problems += block.problems
            checkRows(of: block, into: &problems)
            checkTargets(of: block, hierarchy: hierarchy, historyOfState: historyOfState, into: &problems)
            checkInitials(of: block, hierarchy: hierarchy, historyOfState: historyOfState, into: &problems)
            checkFinals(of: block, blockOfState: blockOfState, hierarchy: hierarchy, into: &problems)
        }
        checkHistories(hierarchy: hierarchy, historyOfState: historyOfState, into: &problems)
        setAsideTolerated()
        if problems.isEmpty {
            checkEventlessLoops(blockOfState: blockOfState, historyOfState: historyOfState, hierarchy: hierarchy, into: &problems)
        }
        if problems.isEmpty { checkSendLoops(blockOfState: blockOfState, hierarchy: hierarchy, into: &problems) }
        if historyOfState[initial.index] >= 0 {
            problems.append(DefinitionProblem(
                kind: .badInitial, state: initial.name, event: nil,
                message: "the machine's initial state \(initial.name) is a history; start in a state (a superstate starts in its initial child)"))
        }
        if problems.isEmpty {
            checkReachability(blockOfState: blockOfState, historyOfState: historyOfState, hierarchy: hierarchy, into: &problems)
            setAsideTolerated()
        }
        if !problems.isEmpty { throw MachineDefinitionError(problems: problems) }
        return TransitionTable(
            definition: self, blockOfState: blockOfState, hierarchy: hierarchy,
            warnings: toleratedWarnings + warnings(blockOfState: blockOfState, hierarchy: hierarchy))
    }

    private func checkSymbolOrder<Symbol: MachineSymbol>(_: Symbol.Type, kind: String, into problems: inout [DefinitionProblem]) {
        for (position, symbol) in Symbol.allCases.enumerated() where symbol.rawValue != position {
            problems.append(DefinitionProblem(
                kind: .symbolOrder, state: kind == "state" ? symbol.name : nil, event: kind == "event" ? symbol.name : nil,
                message: "\(kind) \(symbol.name) has raw value \(symbol.rawValue) but is case number \(position); declare the enum as `: Int` without explicit raw values"))
        }
    }

    /// The nesting; nil (with the problems said) when a parent chain loops or is deeper than
    /// the bound, as nothing else can be checked on it then.
    private func buildHierarchy(blockOfState: [Int], historyOfState: [Int], into found: inout [DefinitionProblem]) -> StateHierarchy? {
        let count = blockOfState.count
        var parents = [Int](repeating: -1, count: count)
        var historyStates: [Int] = []
        for state in 0..<count {
            if blockOfState[state] >= 0 {
                parents[state] = blocks[blockOfState[state]].parent?.index ?? -1
            } else if historyOfState[state] >= 0 {
                parents[state] = histories[historyOfState[state]].parent.index
                historyStates.append(state)
            }
        }
        let parallel = (0..<count).map { blockOfState[$0] >= 0 && blocks[blockOfState[$0]].isParallel }
        var hierarchy = StateHierarchy(stateCount: count, parents: parents, histories: historyStates, parallel: parallel)
        var problems: [DefinitionProblem] = []
        for state in hierarchy.computeDepths() {
            problems.append(DefinitionProblem(
                kind: .parentCycle, state: name(of: state), event: nil,
                message: "\(location(of: state, blockOfState, historyOfState)): state \(name(of: state)) is inside itself (its chain of superstates loops); give the outermost state of the loop no parent"))
        }
        for state in 0..<count where problems.isEmpty && hierarchy.depth[state] > MachineLimits.maximumDepth {
            problems.append(DefinitionProblem(
                kind: .tooDeep, state: name(of: state), event: nil,
                message: "\(location(of: state, blockOfState, historyOfState)): state \(name(of: state)) is nested \(hierarchy.depth[state]) levels deep; at most \(MachineLimits.maximumDepth) are allowed (MachineLimits.maximumDepth)"))
        }
        for state in 0..<count where hierarchy.parent[state] >= 0 && hierarchy.historySlot[hierarchy.parent[state]] >= 0 {
            problems.append(DefinitionProblem(
                kind: .badHistory, state: name(of: state), event: nil,
                message: "\(location(of: state, blockOfState, historyOfState)): state \(name(of: state)) is inside the history \(name(of: hierarchy.parent[state])); put it inside the history's superstate"))
        }
        found += problems
        return problems.isEmpty ? hierarchy : nil
    }

    /// One pass over the rows, each trigger's first unguarded row remembered (a scan of the
    /// rows per event was cubic in a chart's wildcard rows). Problems come out by trigger, in
    /// the order of the event enum, as they always have.
    private func checkRows(of block: StateBlock<State, Event, Context>, into problems: inout [DefinitionProblem]) {
        // By trigger (the eventless rows after every event), only the triggers the block has:
        // its cost is its rows', not its rows' times the events.
        let eventless = Event.allCases.count
        var unguarded: [Int: Int] = [:]
        var found: [(trigger: Int, problem: DefinitionProblem)] = []
        for (position, row) in block.rows.enumerated() {
            let trigger = row.event?.index ?? eventless
            guard let first = unguarded[trigger] else {
                if row.guard == nil { unguarded[trigger] = position }
                continue
            }
            let earlier = block.rows[first]
            let what = row.event.map { $0.name } ?? "always (no event)"
            let kind: DefinitionProblem.Kind = row.guard == nil ? .duplicateRow : .unreachableRow
            let problem = row.guard == nil
                ? "answers \(what) twice without a guard (at \(earlier.location) and \(row.location)); give the first a guard or remove one"
                : "has a row for \(what) at \(row.location) that can never run: the unguarded row at \(earlier.location) comes first; move the unguarded row last"
            found.append((trigger, DefinitionProblem(kind: kind, state: block.state.name, event: row.event?.name, message: "\(row.location): state \(block.state.name) \(problem)")))
        }
        // Sorted by trigger, each trigger's in the order written (the sort is stable).
        problems += found.enumerated().sorted { ($0.element.trigger, $0.offset) < ($1.element.trigger, $1.offset) }.map { $0.element.problem }
    }

    /// A row's several targets must be able to be active together: each in another region of
    /// a parallel state.
    private func checkTargets(
        of block: StateBlock<State, Event, Context>, hierarchy: StateHierarchy, historyOfState: [Int], into problems: inout [DefinitionProblem]
    ) {
        for row in block.rows where row.targets.count > 1 {
            checkTogether(row.targets, what: "a row for \(row.event?.name ?? "always (no event)")", state: block.state.name, at: row.location, hierarchy: hierarchy, into: &problems)
            for target in row.targets where historyOfState[target.index] >= 0 {
                problems.append(DefinitionProblem(
                    kind: .badTarget, state: block.state.name, event: row.event?.name,
                    message: "\(row.location): a row of \(block.state.name) targets the history \(target.name) beside other states; a history is a target alone"))
            }
        }
        for initial in block.initials where initial.targets.count > 1 {
            checkTogether(initial.targets, what: "an initial", state: block.state.name, at: initial.location, hierarchy: hierarchy, into: &problems)
        }
    }

    /// Several targets, each in a different region of a parallel state, none inside another.
    private func checkTogether(_ targets: [State], what: String, state: String, at location: SourceLocation, hierarchy: StateHierarchy, into problems: inout [DefinitionProblem]) {
        for (position, first) in targets.enumerated() {
            for second in targets[(position + 1)...] {
                let nested = hierarchy.isInside(first.index, second.index) || hierarchy.isInside(second.index, first.index)
                if nested || !hierarchy.areOrthogonalOrNested(first.index, second.index) {
                    problems.append(DefinitionProblem(
                        kind: .badTarget, state: state, event: nil,
                        message: "\(location): \(what) of \(state) targets \(first.name) and \(second.name), which cannot be active together (\(nested ? "one is inside the other" : "they are in the same region, not in two regions of a parallel state")); name one state per region"))
                }
            }
        }
    }

    /// Eventless rows that would be taken for ever: from an innermost state, the first eventless
    /// row that applies (its own, else its superstates') is unguarded, and following such rows
    /// (into initial states' defaults) comes back to a state already passed, or the row has no
    /// target. History targets are not followed: where they lead depends on the run.
    private func checkEventlessLoops(blockOfState: [Int], historyOfState: [Int], hierarchy: StateHierarchy, into problems: inout [DefinitionProblem]) {
        /// The first eventless row that applies in `state`, if it is unguarded.
        func certainRow(from state: Int) -> RowSpec<State, Event, Context>? {
            var source = state
            while source >= 0 {
                if let first = blocks[blockOfState[source]].rows.first(where: { $0.event == nil }) {
                    return first.guard == nil ? first : nil
                }
                source = hierarchy.parent[source]
            }
            return nil
        }
        /// Where entering `state` ends: down the unguarded default initial states.
        func settled(_ state: Int) -> Int? {
            var current = state
            while hierarchy.isCompound[current] {
                guard let initial = blocks[blockOfState[current]].initials.last, initial.guard == nil,
                      blocks[blockOfState[current]].initials.count == 1 else { return nil }
                current = initial.target.index
            }
            return historyOfState[current] >= 0 ? nil : current
        }
        // A state whose walk was already followed to its end (a loop reported, or a row that
        // is not certain) is not walked again: each state is passed once in all, not once per
        // start behind it (a long chain made that cubic).
        var reported = Set<Int>()
        for start in 0..<blockOfState.count where blockOfState[start] >= 0 && !hierarchy.isCompound[start] && !reported.contains(start) {
            var passed: [Int] = [start]
            var position = [start: 0]
            var current = start
            defer { reported.formUnion(passed) }
            while let row = certainRow(from: current) {
                guard let target = row.target else {
                    problems.append(DefinitionProblem(
                        kind: .eventlessLoop, state: name(of: current), event: nil,
                        message: "\(row.location): the eventless row taken in state \(name(of: current)) has no guard and no target, so it is taken for ever; give it a guard, or a target"))
                    reported.formUnion(passed)
                    break
                }
                guard let next = settled(target.index), !(reported.contains(next) && position[next] == nil) else { break }
                if let first = position[next] {
                    let loop = passed[first...].map(name(of:)) + [name(of: next)]
                    problems.append(DefinitionProblem(
                        kind: .eventlessLoop, state: name(of: next), event: nil,
                        message: "\(row.location): unguarded eventless rows loop for ever: \(loop.joined(separator: " -> ")); give one of them a guard that its own move makes false"))
                    reported.formUnion(passed)
                    break
                }
                position[next] = passed.count
                passed.append(next)
                current = next
            }
        }
    }

    /// A superstate names where it starts, inside itself, with a default last; a state without
    /// children names none.
    /// A final state has no rows and nothing inside it; a superstate with a done event has a
    /// final state to send it from.
    private func checkFinals(of block: StateBlock<State, Event, Context>, blockOfState: [Int], hierarchy: StateHierarchy, into problems: inout [DefinitionProblem]) {
        let state = block.state.index
        if block.isFinal, let row = block.rows.first {
            problems.append(DefinitionProblem(
                kind: .badFinal, state: block.state.name, event: row.event?.name,
                message: "\(row.location): final state \(block.state.name) has a row; a final state answers nothing (it is left by the rows of the states around it)"))
        }
        if block.isFinal && hierarchy.isCompound[state] {
            problems.append(DefinitionProblem(
                kind: .badFinal, state: block.state.name, event: nil,
                message: "\(block.location): final state \(block.state.name) has states inside it; a final state is innermost"))
        }
        if block.isFinal, hierarchy.parent[state] >= 0, hierarchy.isParallel[hierarchy.parent[state]] {
            problems.append(DefinitionProblem(
                kind: .badFinal, state: block.state.name, event: nil,
                message: "\(block.location): final state \(block.state.name) is directly inside the parallel state \(name(of: hierarchy.parent[state])), where every state is a region that is always active; put it inside one of the regions"))
        }
        func hasFinalChild(_ superstate: Int) -> Bool {
            hierarchy.children[superstate].contains { child in blockOfState[child] >= 0 && blocks[blockOfState[child]].isFinal }
        }
        if let done = block.doneEvent, hierarchy.isParallel[state] {
            for region in hierarchy.children[state] where blockOfState[region] >= 0 && !hasFinalChild(region) {
                problems.append(DefinitionProblem(
                    kind: .badFinal, state: block.state.name, event: done.name,
                    message: "\(block.location): \(block.state.name) sends \(done.name) when every region is done, but its region \(name(of: region)) has no final state; add definition.final(_:in: .\(name(of: region)))"))
            }
        } else if let done = block.doneEvent {
            let hasFinal = hasFinalChild(state)
            if !hasFinal {
                problems.append(DefinitionProblem(
                    kind: .badFinal, state: block.state.name, event: done.name,
                    message: "\(block.location): \(block.state.name) sends \(done.name) when done, but no final state is inside it; add definition.final(_:in: .\(block.state.name))"))
            }
        }
    }

    private func checkInitials(
        of block: StateBlock<State, Event, Context>, hierarchy: StateHierarchy, historyOfState: [Int], into problems: inout [DefinitionProblem]
    ) {
        let state = block.state.index
        guard hierarchy.isCompound[state] else {
            if let first = block.initials.first {
                problems.append(DefinitionProblem(
                    kind: .badInitial, state: block.state.name, event: nil,
                    message: "\(first.location): state \(block.state.name) names an initial state but has no states inside it; declare them with definition.state(_:in: .\(block.state.name)), or remove the initial"))
            }
            return
        }
        if hierarchy.isParallel[state] {
            if let first = block.initials.first {
                problems.append(DefinitionProblem(
                    kind: .badInitial, state: block.state.name, event: nil,
                    message: "\(first.location): \(block.state.name) holds parallel regions, which all start at once; give each region (each state directly inside it) its own initial state instead"))
            }
            return
        }
        guard let last = block.initials.last else {
            problems.append(DefinitionProblem(
                kind: .missingInitial, state: block.state.name, event: nil,
                message: "\(block.location): superstate \(block.state.name) has no initial state; add s.initial(.child) to its block (it is entered there whenever a row targets \(block.state.name) itself)"))
            return
        }
        for (position, initial) in block.initials.enumerated() {
            for target in initial.targets where !hierarchy.isProperlyInside(target.index, state)
                || (historyOfState[target.index] >= 0 && initial.targets.count > 1) {
                problems.append(DefinitionProblem(
                    kind: .badInitial, state: block.state.name, event: nil,
                    message: "\(initial.location): the initial state \(target.name) of \(block.state.name) is not a state inside it; name one of its own states (a history only alone)"))
            }
            if initial.guard == nil && position != block.initials.count - 1 {
                problems.append(DefinitionProblem(
                    kind: .unreachableRow, state: block.state.name, event: nil,
                    message: "\(block.initials[position + 1].location): an initial state of \(block.state.name) can never be chosen: the unguarded one at \(initial.location) comes first; move the unguarded one last"))
            }
        }
        if last.guard != nil {
            problems.append(DefinitionProblem(
                kind: .missingInitial, state: block.state.name, event: nil,
                message: "\(last.location): every initial state of \(block.state.name) has a guard, so none may hold; add an unguarded s.initial(.child) last as the default"))
        }
    }

    /// A history belongs to a superstate, and its default is inside it.
    private func checkHistories(hierarchy: StateHierarchy, historyOfState: [Int], into problems: inout [DefinitionProblem]) {
        for history in histories {
            let parent = history.parent.index
            if historyOfState[parent] >= 0 || !hierarchy.isCompound[parent] {
                problems.append(DefinitionProblem(
                    kind: .badHistory, state: history.state.name, event: nil,
                    message: "\(history.location): history \(history.state.name) is of \(history.parent.name), which has no states inside it; a history remembers a superstate's active child"))
                continue
            }
            for target in history.defaultTargets where !hierarchy.isProperlyInside(target.index, parent) || historyOfState[target.index] >= 0 {
                problems.append(DefinitionProblem(
                    kind: .badHistory, state: history.state.name, event: nil,
                    message: "\(history.location): the default \(target.name) of history \(history.state.name) is not a state inside \(history.parent.name); name one of its states"))
            }
            checkTogether(history.defaultTargets, what: "the default of history \(history.state.name)", state: history.state.name, at: history.location, hierarchy: hierarchy, into: &problems)
        }
    }

    /// Every state can be entered: from the initial state, through rows, initial states and
    /// history defaults, a state being entered with every superstate around it. A history may
    /// restore any state inside its superstate that was active before, so it adds only its
    /// default.
    private func checkReachability(blockOfState: [Int], historyOfState: [Int], hierarchy: StateHierarchy, into problems: inout [DefinitionProblem]) {
        var reached = [Bool](repeating: false, count: blockOfState.count)
        var pending: [Int] = []
        func reach(_ state: Int) {
            var walker = state
            while walker >= 0 && !reached[walker] {
                reached[walker] = true
                pending.append(walker)
                walker = hierarchy.parent[walker]
            }
        }
        reach(initial.index)
        while let state = pending.popLast() {
            if historyOfState[state] >= 0 {
                for target in histories[historyOfState[state]].defaultTargets { reach(target.index) }
                continue
            }
            let block = blocks[blockOfState[state]]
            for row in block.rows { for target in row.targets { reach(target.index) } }
            for initial in block.initials { for target in initial.targets { reach(target.index) } }
            if block.isParallel {
                for region in hierarchy.children[state] where historyOfState[region] < 0 { reach(region) }
            }
        }
        for state in State.allCases where !reached[state.index] {
            problems.append(DefinitionProblem(
                kind: .unreachableState, state: state.name, event: nil,
                message: "\(location(of: state.index, blockOfState, historyOfState)): state \(state.name) cannot be reached from the initial state \(initial.name); add a row that moves to it, or remove it"))
        }
    }

    private func warnings(blockOfState: [Int], hierarchy: StateHierarchy) -> [String] {
        var warnings: [String] = []
        // A state with no way out: neither it nor any superstate around it has a row that leaves it.
        for block in blocks where !hierarchy.isCompound[block.state.index] && !block.isFinal {
            var leaves = false
            var walker = block.state.index
            while walker >= 0 && !leaves {
                leaves = blocks[blockOfState[walker]].rows.contains { row in row.target.map { $0 != block.state } ?? false }
                walker = hierarchy.parent[walker]
            }
            if !leaves {
                warnings.append("\(block.location): state \(block.state.name) has no way out; once entered the machine stays there")
            }
        }
        // One pass over the rows (a scan of them per event grew with events × rows).
        var answered = [Bool](repeating: false, count: Event.allCases.count)
        for block in blocks {
            for row in block.rows { if let event = row.event { answered[event.index] = true } }
        }
        for event in Event.allCases where !answered[event.index] {
            warnings.append("event \(event.name) is answered by no state; it will always be ignored")
        }
        return warnings
    }

    func name(of state: Int) -> String {
        State.allCases[State.allCases.index(State.allCases.startIndex, offsetBy: state)].name
    }

    private func location(of state: Int, _ blockOfState: [Int], _ historyOfState: [Int]) -> String {
        if blockOfState[state] >= 0 { return "\(blocks[blockOfState[state]].location)" }
        if historyOfState[state] >= 0 { return "\(histories[historyOfState[state]].location)" }
        return "(no block)"
    }
}
