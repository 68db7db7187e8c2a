/// Builds a `TransitionTable` from a checked definition, one named pass per part of the table.
/// The passes that write entry paths or target runs (`candidateRows`, `initialStates`,
/// `historyDefaults`) append to the shared `paths` and `targets`, which the table takes last.
/// Off the dispatch path: it runs once, in `compile()`.
struct TransitionTableBuilder<State: MachineSymbol, Event: MachineSymbol, Context> {
    typealias Table = TransitionTable<State, Event, Context>

    let definition: MachineDefinition<State, Event, Context>
    /// By state: its block in `definition.blocks`, -1 for a history pseudo-state.
    let blockOfState: [Int]
    let hierarchy: StateHierarchy
    let states: [State]
    /// Every event, then `nil` for the eventless rows: one column each.
    let triggers: [Event?]
    let hasEventless: Bool
    /// Each block's rows by trigger (the eventless ones last), as positions in the order
    /// written: the table is built in one pass over the rows, not a scan of a block's rows for
    /// every state and event inside it (a chart's wildcard rows made that cubic).
    let rowsByTrigger: [[[Int]]]
    /// States entered by rows and initial states, in runs the rows and initials point into.
    private(set) var paths = ContiguousArray<Int32>()
    /// Targets of rows, initial states and history defaults, in runs (for parallel regions).
    private(set) var targets = ContiguousArray<Int32>()

    init(definition: MachineDefinition<State, Event, Context>, blockOfState: [Int], hierarchy: StateHierarchy) {
        self.definition = definition
        self.blockOfState = blockOfState
        self.hierarchy = hierarchy
        states = Array(State.allCases)
        triggers = Event.allCases.map(Optional.some) + [nil]
        hasEventless = definition.blocks.contains { $0.rows.contains { $0.event == nil } }
        let triggerCount = triggers.count
        rowsByTrigger = definition.blocks.map { block in
            var byTrigger = [[Int]](repeating: [], count: triggerCount)
            for (position, spec) in block.rows.enumerated() { byTrigger[spec.event?.index ?? triggerCount - 1].append(position) }
            return byTrigger
        }
    }

    private mutating func addPath(_ path: [Int]) -> Int32 {
        let offset = Int32(paths.count)
        paths.append(contentsOf: path.map { Int32($0) })
        return offset
    }

    private mutating func addTargets(_ states: [State]) -> RegionTable.Targets {
        let offset = Int32(targets.count)
        targets.append(contentsOf: states.map { Int32($0.index) })
        return RegionTable.Targets(offset: offset, count: Int32(states.count))
    }

    private func depth(_ state: Int) -> Int { state < 0 ? -1 : hierarchy.depth[state] }

    private func isFinal(_ state: Int) -> Bool {
        blockOfState[state] >= 0 && definition.blocks[blockOfState[state]].isFinal
    }

    /// The rows dispatch tries, by (state, trigger): a state's own rows, then each superstate's,
    /// innermost first, each with the states it exits and enters worked out.
    struct CandidateRows {
        var rows: [Table.Row] = []
        /// Where each (state, trigger) cell's rows begin in `rows`, and one past the last.
        var rowStart: [Int32] = []
        var info: [Table.RowInfo] = []
        /// By row, what the configuration path needs of it.
        var regionRows: [RegionTable.Row] = []
    }

    mutating func candidateRows() -> CandidateRows {
        var result = CandidateRows()
        var writtenBase: [Int] = []
        var writtenCount = 0
        for block in definition.blocks {
            writtenBase.append(writtenCount)
            writtenCount += block.rows.count
        }
        result.rowStart.reserveCapacity(states.count * triggers.count + 1)
        for state in states {
            for trigger in 0..<triggers.count {
                result.rowStart.append(Int32(result.rows.count))
                // This state's rows, then each superstate's, innermost first. Most cells of a
                // large table hold none: those cost a few integer loads, no copy of a block.
                var source = blockOfState[state.index] >= 0 ? state.index : -1
                while source >= 0 {
                    let block = definition.blocks[blockOfState[source]]
                    for position in rowsByTrigger[blockOfState[source]][trigger] {
                        let spec = block.rows[position]
                        let written = Int32(writtenBase[blockOfState[source]] + position)
                        result.rows.append(row(spec, source: source, in: state.index))
                        let targets = addTargets(spec.targets)
                        let domain = spec.target == nil ? -1
                            : hierarchy.domain(source: source, targets: spec.targets.map { $0.index }, kind: spec.kind)
                        result.regionRows.append(RegionTable.Row(
                            source: Int32(source), written: written, domain: Int32(domain),
                            targetOffset: targets.offset, targetCount: targets.count, isLocal: spec.kind == .local,
                            targetsHistory: spec.targets.contains { hierarchy.historySlot[$0.index] >= 0 }))
                        result.info.append(Table.RowInfo(
                            from: block.state, event: triggers[trigger], guardLabel: spec.guard?.label, targets: spec.targets,
                            location: spec.location, kind: spec.kind))
                    }
                    source = hierarchy.parent[source]
                }
            }
        }
        result.rowStart.append(Int32(result.rows.count))
        return result
    }

    /// Row `spec`, written in `source`, as dispatch takes it in `state`.
    private mutating func row(_ spec: RowSpec<State, Event, Context>, source: Int, in state: Int) -> Table.Row {
        guard let target = spec.target else {
            return Table.Row(condition: spec.guard?.condition, target: nil, action: spec.action, isSimple: !hasEventless)
        }
        if hierarchy.historySlot[target.index] >= 0 {
            // Its domain, what it exits and what it enters depend on what the history stands
            // for when the row is taken: worked out then, from `source`.
            return Table.Row(
                condition: spec.guard?.condition, target: target, action: spec.action, isSimple: false,
                exitCount: Table.Row.toHistory, source: Int32(source), isLocal: spec.kind == .local)
        }
        let domain = hierarchy.domain(source: source, targets: [target.index], kind: spec.kind)
        let entry = hierarchy.path(from: domain, down: target.index)
        let exitCount = depth(state) - depth(domain)
        let simple = exitCount == 1 && entry.count == 1 && !hierarchy.isCompound[target.index]
            && !hierarchy.isCompound[state] && !hasEventless
            && !isFinal(target.index)
        return Table.Row(
            condition: spec.guard?.condition, target: target, action: spec.action, isSimple: simple,
            exitCount: Int32(exitCount), entryOffset: addPath(entry), entryCount: Int32(entry.count),
            source: Int32(source), isLocal: spec.kind == .local)
    }

    /// Every row as written, grouped by state in declaration order of the states, then by event.
    func writtenRows() -> [Table.RowInfo] {
        var written: [Table.RowInfo] = []
        for state in states where blockOfState[state.index] >= 0 {
            let block = definition.blocks[blockOfState[state.index]]
            for trigger in 0..<triggers.count {
                for position in rowsByTrigger[blockOfState[state.index]][trigger] {
                    let spec = block.rows[position]
                    written.append(Table.RowInfo(
                        from: state, event: triggers[trigger], guardLabel: spec.guard?.label, targets: spec.targets,
                        location: spec.location, kind: spec.kind))
                }
            }
        }
        return written
    }

    /// Each superstate's initial states, in the order they are tried: `initials[start[s] ..<
    /// start[s + 1]]`, an empty range for a state without children.
    struct InitialStates {
        var start: [Int32] = []
        var initials: [Table.Initial] = []
        /// By initial, its targets (several only into parallel regions).
        var targets: [RegionTable.Targets] = []
        var info: [Table.InitialInfo] = []
    }

    mutating func initialStates() -> InitialStates {
        var result = InitialStates()
        for state in states {
            result.start.append(Int32(result.initials.count))
            guard blockOfState[state.index] >= 0 else { continue }
            for spec in definition.blocks[blockOfState[state.index]].initials {
                result.info.append(Table.InitialInfo(superstate: state, guardLabel: spec.guard?.label, targets: spec.targets))
                guard hierarchy.isCompound[state.index] else { continue }
                let entry = hierarchy.path(from: state.index, down: spec.target.index)
                result.initials.append(Table.Initial(
                    condition: spec.guard?.condition, entryOffset: addPath(entry), entryCount: Int32(entry.count), action: spec.action))
                result.targets.append(addTargets(spec.targets))
            }
        }
        result.start.append(Int32(result.initials.count))
        return result
    }

    /// The history slots each state's exit records: `slots[start[s] ..< start[s + 1]]`.
    func historyRecords() -> (start: [Int32], slots: [Int32]) {
        var start: [Int32] = []
        var slots: [Int32] = []
        for state in states {
            start.append(Int32(slots.count))
            for history in definition.histories where history.parent == state {
                slots.append(Int32(hierarchy.historySlot[history.state.index]))
            }
        }
        start.append(Int32(slots.count))
        return (start, slots)
    }

    /// By history slot: whether it is deep, the state it enters before anything is remembered,
    /// its default's action (as an initial state with no path), and its default's targets.
    struct HistoryDefaults {
        var isDeep: [Bool]
        var defaultState: [Int32]
        var actions: [Table.Initial]
        var targets: [RegionTable.Targets]
    }

    mutating func historyDefaults() -> HistoryDefaults {
        let count = definition.histories.count
        var result = HistoryDefaults(
            isDeep: Array(repeating: false, count: count), defaultState: Array(repeating: -1, count: count),
            actions: [], targets: Array(repeating: RegionTable.Targets(offset: 0, count: 0), count: count))
        var actions: [Table.Initial?] = Array(repeating: nil, count: count)
        for history in definition.histories {
            let slot = hierarchy.historySlot[history.state.index]
            result.isDeep[slot] = history.deep
            result.defaultState[slot] = Int32(history.defaultTarget.index)
            actions[slot] = Table.Initial(condition: nil, entryOffset: 0, entryCount: 0, action: history.action)
            result.targets[slot] = addTargets(history.defaultTargets)
        }
        result.actions = actions.map { $0! }
        return result
    }

    /// Each state's children (histories left out) in the order of the state enum, and SCXML's
    /// document order: a depth-first walk, parents before children.
    func children() -> (start: [Int32], children: [Int32], documentOrder: [Int32]) {
        var start: [Int32] = []
        var children: [Int32] = []
        for list in hierarchy.children {
            start.append(Int32(children.count))
            children.append(contentsOf: list.map { Int32($0) })
        }
        start.append(Int32(children.count))
        var documentOrder: [Int32] = []
        func walk(_ state: Int) {
            documentOrder.append(Int32(state))
            for child in hierarchy.children[state] { walk(child) }
        }
        for state in states where hierarchy.parent[state.index] < 0 && hierarchy.historySlot[state.index] < 0 { walk(state.index) }
        return (start, children, documentOrder)
    }

    /// By state: for a final state the raw value of the event its superstate sends when it is
    /// entered (-1: none), -2 for a state that is not final; and the done event each state
    /// sends itself (-1: none).
    func doneEvents() -> (onEntry: [Int32], own: [Int32]) {
        let onEntry = states.map { state -> Int32 in
            guard isFinal(state.index) else { return -2 }
            let parent = hierarchy.parent[state.index]
            guard parent >= 0, let done = definition.blocks[blockOfState[parent]].doneEvent else { return -1 }
            return Int32(done.index)
        }
        let own = states.map { state -> Int32 in
            guard blockOfState[state.index] >= 0, let done = definition.blocks[blockOfState[state.index]].doneEvent else { return -1 }
            return Int32(done.index)
        }
        return (onEntry, own)
    }

    /// By state: its entry and exit work.
    func stateWork() -> [Table.StateWork] {
        states.map { state in
            let block = blockOfState[state.index] >= 0 ? definition.blocks[blockOfState[state.index]] : nil
            return Table.StateWork(entry: block?.entry, exit: block?.exit)
        }
    }
}
