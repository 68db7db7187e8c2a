/// The compiled machine: every legal move, in a fixed-size table indexed by (state, event).
///
/// Rows for one (state, event) pair sit contiguously in `rows`, in the order written; `rowStart`
/// says where each pair's rows begin, so a lookup is two array reads. In a nested machine a
/// state's rows are followed by its superstates' rows for the same event, innermost first, each
/// with the states it exits and enters worked out here: dispatch walks no hierarchy and
/// searches nothing. It is immutable and built once; dispatch only reads it.
public final class TransitionTable<State: MachineSymbol, Event: MachineSymbol, Context>: @unchecked Sendable {
    // Safety: @unchecked only because the buffers are pointers; they are written once in `init`,
    // never after, and freed in `deinit`.
    /// One row as dispatch needs it. Labels and source lines live in `rowInfo`, off the hot path.
    ///
    /// A class, held unretained in `rows` and borrowed for each call: a closure copied out of
    /// memory has its context retained and released around every call, about 45 instructions per
    /// turnstile event; a closure called through a borrowed object is not copied.
    @usableFromInline
    final class Row: Sendable {
        @usableFromInline let condition: (@Sendable (Context) -> Bool)?
        @usableFromInline let target: State?
        @usableFromInline let action: MachineAction<State, Event, Context>?
        /// A move from one innermost state to another, as in a flat machine: exit the current
        /// state, enter `target`, nothing around them, and no eventless rows to look for after
        /// (for a targetless row: only the last). Every row of a flat machine without eventless
        /// rows is simple; the others take the nested path, which looks for eventless rows after.
        @usableFromInline let isSimple: Bool
        /// How many states the move exits, the current innermost state first.
        @usableFromInline let exitCount: Int32
        /// The states it enters, outermost first, at `entryOffset` in the table's `paths`.
        @usableFromInline let entryOffset: Int32
        @usableFromInline let entryCount: Int32
        /// For parallel regions (`TransitionTable.hasRegions`), where exits depend on which
        /// states are active: the state whose block holds the row, the row as written (the
        /// same row is a candidate in every state inside its own, and is taken once), the
        /// transition domain (-1: the top) and the targets, at `targetOffset` in `targets`.
        @usableFromInline let source: Int32
        @usableFromInline let written: Int32
        @usableFromInline let domain: Int32
        @usableFromInline let targetOffset: Int32
        @usableFromInline let targetCount: Int32

        init(
            condition: (@Sendable (Context) -> Bool)?, target: State?, action: MachineAction<State, Event, Context>?,
            isSimple: Bool = true, exitCount: Int32 = 1, entryOffset: Int32 = 0, entryCount: Int32 = 1,
            source: Int32 = -1, written: Int32 = -1, domain: Int32 = -1, targetOffset: Int32 = 0, targetCount: Int32 = 0
        ) {
            self.condition = condition
            self.target = target
            self.action = action
            self.isSimple = isSimple
            self.exitCount = exitCount
            self.entryOffset = entryOffset
            self.entryCount = entryCount
            self.source = source
            self.written = written
            self.domain = domain
            self.targetOffset = targetOffset
            self.targetCount = targetCount
        }
    }

    /// A state's entry and exit work, held and called the way `Row` is.
    @usableFromInline
    final class StateWork: Sendable {
        @usableFromInline let entry: MachineAction<State, Event, Context>?
        @usableFromInline let exit: MachineAction<State, Event, Context>?

        init(entry: MachineAction<State, Event, Context>?, exit: MachineAction<State, Event, Context>?) {
            self.entry = entry
            self.exit = exit
        }
    }

    /// One initial state of a superstate: taken when its guard holds (or always, without one),
    /// entering the states at `entryOffset` in `paths`, outermost first.
    @usableFromInline
    final class Initial: Sendable {
        @usableFromInline let condition: (@Sendable (Context) -> Bool)?
        @usableFromInline let entryOffset: Int32
        @usableFromInline let entryCount: Int32
        /// Run when this initial state is taken, after the superstate's entry work.
        @usableFromInline let action: MachineAction<State, Event, Context>?
        /// Its targets at `targetOffset` in `targets` (several only into parallel regions).
        @usableFromInline let targetOffset: Int32
        @usableFromInline let targetCount: Int32

        init(
            condition: (@Sendable (Context) -> Bool)?, entryOffset: Int32, entryCount: Int32,
            action: MachineAction<State, Event, Context>?, targetOffset: Int32, targetCount: Int32
        ) {
            self.condition = condition
            self.entryOffset = entryOffset
            self.entryCount = entryCount
            self.action = action
            self.targetOffset = targetOffset
            self.targetCount = targetCount
        }
    }

    /// A row as diagrams and queries see it.
    public struct RowInfo: Sendable {
        /// The state whose block holds the row (a superstate's row answers in every state inside it).
        public let from: State
        /// nil for an eventless row (`always`).
        public let event: Event?
        public let guardLabel: String?
        /// `nil` for an internal transition; the first of `targets`.
        public var target: State? { targets.first }
        /// Empty for an internal transition; several only into parallel regions.
        public let targets: [State]
        public let location: SourceLocation
        /// Whether a row to a state inside `from` leaves and re-enters `from`.
        public let kind: TransitionKind
    }

    /// A superstate's initial state as diagrams see it.
    public struct InitialInfo: Sendable {
        public let superstate: State
        public let guardLabel: String?
        /// The first of `targets`.
        public var target: State { targets[0] }
        /// Several only into parallel regions.
        public let targets: [State]
    }

    /// A history pseudo-state as diagrams see it.
    public struct HistoryInfo: Sendable {
        public let state: State
        public let superstate: State
        public let isDeep: Bool
        /// The first of `defaultTargets`.
        public var defaultTarget: State { defaultTargets[0] }
        /// Several only into parallel regions.
        public let defaultTargets: [State]
    }

    public let initial: State
    /// Every superstate's initial states, in the order they are tried.
    public let initialInfo: [InitialInfo]
    /// Every history pseudo-state.
    public let historyInfo: [HistoryInfo]
    /// Non-fatal findings from compilation: states with no way out, events no state answers.
    public let warnings: [String]
    /// Every row as written, grouped by state in declaration order of the states, then by event.
    public let rowInfo: [RowInfo]
    /// The rows dispatch tries, as `rows` holds them (a superstate's rows repeated for each
    /// state inside it).
    let candidateInfo: [RowInfo]

    /// Each retained once by `init`, released by `deinit`.
    @usableFromInline let rows: UnsafeMutableBufferPointer<Unmanaged<Row>>
    @usableFromInline let rowStart: UnsafeMutableBufferPointer<Int32>
    /// Indexed by state; retained like `rows`.
    @usableFromInline let work: UnsafeMutableBufferPointer<Unmanaged<StateWork>>
    /// Columns per state: one per event, then one for the eventless rows.
    @usableFromInline let columns: Int
    /// Whether any state has eventless rows: only then does a step look for them.
    @usableFromInline let hasEventless: Bool

    // The nesting, by state index (see `StateHierarchy`); all empty-handed for a flat machine.
    /// Each state's superstate, -1 at the top.
    @usableFromInline let parent: UnsafeMutableBufferPointer<Int32>
    /// States entered by rows and initial states, in runs the rows and initials point into.
    @usableFromInline let paths: UnsafeMutableBufferPointer<Int32>
    /// A superstate's initial states are `initials[initialStart[s] ..< initialStart[s + 1]]`;
    /// an empty range marks a state without children.
    @usableFromInline let initialStart: UnsafeMutableBufferPointer<Int32>
    @usableFromInline let initials: UnsafeMutableBufferPointer<Unmanaged<Initial>>
    /// For a history pseudo-state its slot in the machine's history memory, else -1.
    @usableFromInline let historySlot: UnsafeMutableBufferPointer<Int32>
    /// By slot: whether the history is deep, and the state it enters before anything is remembered.
    @usableFromInline let historyIsDeep: UnsafeMutableBufferPointer<Bool>
    @usableFromInline let historyDefault: UnsafeMutableBufferPointer<Int32>
    /// The history slots a state's exit records: `recordedSlots[recordStart[s] ..< recordStart[s + 1]]`.
    @usableFromInline let recordStart: UnsafeMutableBufferPointer<Int32>
    @usableFromInline let recordedSlots: UnsafeMutableBufferPointer<Int32>
    /// How many history pseudo-states the machine has: the size of its history memory.
    public let historyCount: Int
    /// For a final state: the raw value of the event its superstate sends when it is entered,
    /// -1 when it sends none; -2 for a state that is not final.
    @usableFromInline let doneOnEntry: UnsafeMutableBufferPointer<Int32>

    // Parallel regions. A machine with a parallel state takes every event through the
    // configuration path (`ObservedMachine.dispatchInRegions`), SCXML's algorithm over the set
    // of active states; the buffers below serve it. A machine without one never reads them.
    /// Whether any state holds parallel regions.
    @usableFromInline let hasRegions: Bool
    /// By state: whether it holds parallel regions.
    @usableFromInline let isParallel: UnsafeMutableBufferPointer<Bool>
    /// By state: the done event it sends itself (-1: none), as `doneOnEntry` holds its parent's.
    @usableFromInline let doneEvent: UnsafeMutableBufferPointer<Int32>
    /// Every state but the histories, parents before children, children in the order of the
    /// state enum: SCXML's document order, in which regions are offered an event and states
    /// entered (exits go in reverse).
    @usableFromInline let documentOrder: UnsafeMutableBufferPointer<Int32>
    /// A state's children (histories not counted) are `children[childStart[s] ..< childStart[s + 1]]`.
    @usableFromInline let childStart: UnsafeMutableBufferPointer<Int32>
    @usableFromInline let children: UnsafeMutableBufferPointer<Int32>
    /// Targets of rows, initial states and history defaults, in runs they point into.
    @usableFromInline let targets: UnsafeMutableBufferPointer<Int32>
    /// By history slot: its default, as an initial state (targets and action).
    @usableFromInline let historyDefaults: UnsafeMutableBufferPointer<Unmanaged<Initial>>

    init(definition: MachineDefinition<State, Event, Context>, blockOfState: [Int], hierarchy: StateHierarchy, warnings: [String]) {
        let states = Array(State.allCases)
        let events = Array(Event.allCases)
        var rows = ContiguousArray<Unmanaged<Row>>()
        var rowStart = ContiguousArray<Int32>()
        var candidates: [RowInfo] = []
        var paths = ContiguousArray<Int32>()
        func addPath(_ path: [Int]) -> Int32 {
            let offset = Int32(paths.count)
            paths.append(contentsOf: path.map { Int32($0) })
            return offset
        }
        var targets = ContiguousArray<Int32>()
        func addTargets(_ states: [State]) -> Int32 {
            let offset = Int32(targets.count)
            targets.append(contentsOf: states.map { Int32($0.index) })
            return offset
        }
        var writtenBase: [Int] = []
        var writtenCount = 0
        for block in definition.blocks {
            writtenBase.append(writtenCount)
            writtenCount += block.rows.count
        }
        func depth(_ state: Int) -> Int { state < 0 ? -1 : hierarchy.depth[state] }
        func isFinal(_ state: Int) -> Bool { blockOfState[state] >= 0 && definition.blocks[blockOfState[state]].isFinal }
        let triggers: [Event?] = events.map(Optional.some) + [nil]
        // Each block's rows by trigger (the eventless ones last), in the order written: the
        // table is built in one pass over the rows, not a scan of a block's rows for every
        // state and event inside it (a chart's wildcard rows made that cubic).
        let eventless = events.count
        let rowsByTrigger: [[[Int]]] = definition.blocks.map { block in
            var byTrigger = [[Int]](repeating: [], count: triggers.count)
            for (position, spec) in block.rows.enumerated() { byTrigger[spec.event?.index ?? eventless].append(position) }
            return byTrigger
        }
        rowStart.reserveCapacity(states.count * triggers.count + 1)
        let hasEventless = definition.blocks.contains { $0.rows.contains { $0.event == nil } }
        for state in states {
            for trigger in 0..<triggers.count {
                rowStart.append(Int32(rows.count))
                // This state's rows, then each superstate's, innermost first. Most cells of a
                // large table hold none: those cost a few integer loads, no copy of a block.
                var source = blockOfState[state.index] >= 0 ? state.index : -1
                while source >= 0 {
                    let positions = rowsByTrigger[blockOfState[source]][trigger]
                    if positions.isEmpty {
                        source = hierarchy.parent[source]
                        continue
                    }
                    let event = triggers[trigger]
                    let block = definition.blocks[blockOfState[source]]
                    for position in positions {
                        let spec = block.rows[position]
                        let row: Row
                        let written = Int32(writtenBase[blockOfState[source]] + position)
                        if let target = spec.target {
                            let domain = hierarchy.domain(source: source, target: target.index, kind: spec.kind)
                            let entry = hierarchy.path(from: domain, down: target.index)
                            let exitCount = depth(state.index) - depth(domain)
                            let simple = exitCount == 1 && entry.count == 1 && !hierarchy.isCompound[target.index]
                                && hierarchy.historySlot[target.index] < 0 && !hierarchy.isCompound[state.index] && !hasEventless
                                && !isFinal(target.index)
                            let regionDomain = hierarchy.regionDomain(source: source, targets: spec.targets.map { $0.index }, kind: spec.kind)
                            row = Row(
                                condition: spec.guard?.condition, target: target, action: spec.action, isSimple: simple,
                                exitCount: Int32(exitCount), entryOffset: addPath(entry), entryCount: Int32(entry.count),
                                source: Int32(source), written: written, domain: Int32(regionDomain),
                                targetOffset: addTargets(spec.targets), targetCount: Int32(spec.targets.count))
                        } else {
                            row = Row(
                                condition: spec.guard?.condition, target: nil, action: spec.action, isSimple: !hasEventless,
                                source: Int32(source), written: written)
                        }
                        rows.append(.passRetained(row))
                        candidates.append(RowInfo(
                            from: block.state, event: event, guardLabel: spec.guard?.label, targets: spec.targets,
                            location: spec.location, kind: spec.kind))
                    }
                    source = hierarchy.parent[source]
                }
            }
        }
        rowStart.append(Int32(rows.count))
        var written: [RowInfo] = []
        for state in states where blockOfState[state.index] >= 0 {
            let block = definition.blocks[blockOfState[state.index]]
            for trigger in 0..<triggers.count {
                let event = triggers[trigger]
                for position in rowsByTrigger[blockOfState[state.index]][trigger] {
                    let spec = block.rows[position]
                    written.append(RowInfo(from: state, event: event, guardLabel: spec.guard?.label, targets: spec.targets, location: spec.location, kind: spec.kind))
                }
            }
        }
        var initialStart = ContiguousArray<Int32>()
        var initials = ContiguousArray<Unmanaged<Initial>>()
        for state in states {
            initialStart.append(Int32(initials.count))
            guard blockOfState[state.index] >= 0, hierarchy.isCompound[state.index] else { continue }
            for spec in definition.blocks[blockOfState[state.index]].initials {
                let entry = hierarchy.path(from: state.index, down: spec.target.index)
                initials.append(.passRetained(Initial(
                    condition: spec.guard?.condition, entryOffset: addPath(entry), entryCount: Int32(entry.count),
                    action: spec.action, targetOffset: addTargets(spec.targets), targetCount: Int32(spec.targets.count))))
            }
        }
        initialStart.append(Int32(initials.count))
        var recordStart = ContiguousArray<Int32>()
        var recordedSlots = ContiguousArray<Int32>()
        for state in states {
            recordStart.append(Int32(recordedSlots.count))
            for history in definition.histories where history.parent == state {
                recordedSlots.append(Int32(hierarchy.historySlot[history.state.index]))
            }
        }
        recordStart.append(Int32(recordedSlots.count))
        var historyDefaults = ContiguousArray<Unmanaged<Initial>>()
        for history in definition.histories {
            historyDefaults.append(.passRetained(Initial(
                condition: nil, entryOffset: 0, entryCount: 0, action: history.action,
                targetOffset: addTargets(history.defaultTargets), targetCount: Int32(history.defaultTargets.count))))
        }
        // Document order: a depth-first walk, children in the order of the enum.
        var childLists = [[Int]](repeating: [], count: states.count)
        for state in states where hierarchy.parent[state.index] >= 0 && hierarchy.historySlot[state.index] < 0 {
            childLists[hierarchy.parent[state.index]].append(state.index)
        }
        var documentOrder = ContiguousArray<Int32>()
        func walk(_ state: Int) {
            documentOrder.append(Int32(state))
            for child in childLists[state] { walk(child) }
        }
        for state in states where hierarchy.parent[state.index] < 0 && hierarchy.historySlot[state.index] < 0 { walk(state.index) }
        var childStart = ContiguousArray<Int32>()
        var children = ContiguousArray<Int32>()
        for list in childLists {
            childStart.append(Int32(children.count))
            children.append(contentsOf: list.map { Int32($0) })
        }
        childStart.append(Int32(children.count))
        var historyIsDeep = ContiguousArray<Bool>(repeating: false, count: definition.histories.count)
        var historyDefault = ContiguousArray<Int32>(repeating: -1, count: definition.histories.count)
        for history in definition.histories {
            let slot = hierarchy.historySlot[history.state.index]
            historyIsDeep[slot] = history.deep
            historyDefault[slot] = Int32(history.defaultTarget.index)
        }
        self.rows = Self.copy(rows)
        self.rowStart = Self.copy(rowStart)
        self.rowInfo = written
        self.candidateInfo = candidates
        self.work = Self.copy(states.map { state in
            let block = blockOfState[state.index] >= 0 ? definition.blocks[blockOfState[state.index]] : nil
            return Unmanaged.passRetained(StateWork(entry: block?.entry, exit: block?.exit))
        })
        self.columns = triggers.count
        self.hasEventless = hasEventless
        self.initial = definition.initial
        self.initialInfo = states.flatMap { state in
            blockOfState[state.index] < 0 ? [] : definition.blocks[blockOfState[state.index]].initials.map {
                InitialInfo(superstate: state, guardLabel: $0.guard?.label, targets: $0.targets)
            }
        }
        self.historyInfo = definition.histories.map {
            HistoryInfo(state: $0.state, superstate: $0.parent, isDeep: $0.deep, defaultTargets: $0.defaultTargets)
        }
        self.warnings = warnings
        self.parent = Self.copy(hierarchy.parent.map { Int32($0) })
        self.paths = Self.copy(paths)
        self.initialStart = Self.copy(initialStart)
        self.initials = Self.copy(initials)
        self.historySlot = Self.copy(hierarchy.historySlot.map { Int32($0) })
        self.historyIsDeep = Self.copy(historyIsDeep)
        self.historyDefault = Self.copy(historyDefault)
        self.recordStart = Self.copy(recordStart)
        self.recordedSlots = Self.copy(recordedSlots)
        self.historyCount = definition.histories.count
        self.doneOnEntry = Self.copy(states.map { state -> Int32 in
            guard isFinal(state.index) else { return -2 }
            let parent = hierarchy.parent[state.index]
            guard parent >= 0, let done = definition.blocks[blockOfState[parent]].doneEvent else { return -1 }
            return Int32(done.index)
        })
        self.hasRegions = hierarchy.isParallel.contains(true)
        self.isParallel = Self.copy(hierarchy.isParallel)
        self.doneEvent = Self.copy(states.map { state -> Int32 in
            guard blockOfState[state.index] >= 0, let done = definition.blocks[blockOfState[state.index]].doneEvent else { return -1 }
            return Int32(done.index)
        })
        self.documentOrder = Self.copy(documentOrder)
        self.childStart = Self.copy(childStart)
        self.children = Self.copy(children)
        self.targets = Self.copy(targets)
        self.historyDefaults = Self.copy(historyDefaults)
    }

    /// The table lives in buffers of its own rather than arrays: dispatch reads them without
    /// bounds checks or reloading the array after each closure call.
    private static func copy<Elements: Collection>(_ elements: Elements) -> UnsafeMutableBufferPointer<Elements.Element> {
        let buffer = UnsafeMutableBufferPointer<Elements.Element>.allocate(capacity: elements.count)
        _ = buffer.initialize(from: elements)
        return buffer
    }

    deinit {
        for row in rows { row.release() }
        for stateWork in work { stateWork.release() }
        for initial in initials { initial.release() }
        for historyDefault in historyDefaults { historyDefault.release() }
        historyDefaults.deinitialize().deallocate()
        for buffer in [doneEvent, documentOrder, childStart, children, targets] { buffer.deinitialize().deallocate() }
        isParallel.deinitialize().deallocate()
        rows.deinitialize().deallocate()
        rowStart.deinitialize().deallocate()
        work.deinitialize().deallocate()
        initials.deinitialize().deallocate()
        for buffer in [parent, paths, initialStart, historySlot, historyDefault, recordStart, recordedSlots, doneOnEntry] {
            buffer.deinitialize().deallocate()
        }
        historyIsDeep.deinitialize().deallocate()
    }

    /// What dispatch reads, copied into each machine: a machine reads its table's buffers
    /// directly, one load fewer per event than through the table object. Valid while the table
    /// lives; the machine holds it.
    @usableFromInline
    struct DispatchView {
        @usableFromInline let rows: UnsafeMutablePointer<Unmanaged<Row>>
        @usableFromInline let rowStart: UnsafeMutablePointer<Int32>
        @usableFromInline let work: UnsafeMutablePointer<Unmanaged<StateWork>>
        @usableFromInline let columns: Int
        @usableFromInline let hasEventless: Bool
        @usableFromInline let hasRegions: Bool
    }

    @usableFromInline
    var dispatchView: DispatchView {
        DispatchView(
            rows: rows.baseAddress!, rowStart: rowStart.baseAddress!, work: work.baseAddress!, columns: columns,
            hasEventless: hasEventless, hasRegions: hasRegions)
    }

    /// The rows that answer `event` in `state`, in the order they are tried: the state's own,
    /// then its superstates', innermost first.
    public func rows(for state: State, _ event: Event) -> ArraySlice<RowInfo> {
        candidates(state.index * columns + event.index)
    }

    /// The eventless rows tried in `state`, in order: its own, then its superstates'.
    public func eventlessRows(for state: State) -> ArraySlice<RowInfo> {
        candidates(state.index * columns + columns - 1)
    }

    private func candidates(_ key: Int) -> ArraySlice<RowInfo> {
        candidateInfo[Int(rowStart[key])..<Int(rowStart[key + 1])]
    }

    /// Where the row a dispatch took was written, when it was not in the state it was taken
    /// in: a superstate's row (`nil` for a flat machine, a state's own row, or no row).
    public func rowOf(_ record: DispatchRecord<State, Event>) -> State? {
        guard record.outcome != .ignored, record.candidate >= 0, Int(record.candidate) < candidateInfo.count else { return nil }
        let from = candidateInfo[Int(record.candidate)].from
        return from == record.from ? nil : from
    }

    /// The superstate `state` is inside, or `nil` at the top.
    public func parent(of state: State) -> State? {
        let index = Int(parent[state.index])
        return index < 0 ? nil : State.allCases[State.allCases.index(State.allCases.startIndex, offsetBy: index)]
    }

    /// Whether `state` holds parallel regions.
    public func isParallelState(_ state: State) -> Bool { isParallel[state.index] }

    /// Whether states are inside `state`.
    public func isSuperstate(_ state: State) -> Bool {
        childStart[state.index] != childStart[state.index + 1]
    }

    /// Whether `state` is a history pseudo-state (it is never active itself).
    public func isHistory(_ state: State) -> Bool { historySlot[state.index] >= 0 }

    /// `state` and every superstate around it, innermost first: the active configuration when
    /// `state` is the innermost active state.
    public func configuration(of state: State) -> [State] {
        var result: [State] = [state]
        var walker = parent(of: state)
        while let next = walker {
            result.append(next)
            walker = parent(of: next)
        }
        return result
    }

    /// Whether `state` is a final state.
    public func isFinal(_ state: State) -> Bool { doneOnEntry[state.index] != -2 }

    /// The states the machine can rest in, in declaration order: every state that is neither a
    /// superstate nor a history (SCXML's atomic states). For a flat machine, every state.
    public var atomicStates: [State] {
        State.allCases.filter { !isSuperstate($0) && !isHistory($0) }
    }

    /// The atomic state entering `state` leads to when no initial's guard says otherwise: a
    /// history's default, then each superstate's last initial (the fallback after the guarded
    /// ones), a parallel state's first region. `state` itself when it is atomic.
    public func defaultAtomicState(entering state: State) -> State {
        var current = state
        if isHistory(current), let history = historyInfo.first(where: { $0.state == current }) {
            current = history.defaultTarget
        }
        while isSuperstate(current) {
            if let initial = initialInfo.last(where: { $0.superstate == current }) {
                current = initial.target
            } else if let region = State.allCases.first(where: { parent(of: $0) == current && !isHistory($0) }) {
                current = region
            } else {
                break
            }
        }
        return current
    }

    /// The atomic state the machine starts in unless an initial's guard says otherwise: what a
    /// host shows and records before `start()` (the table's `initial` may be a superstate, which
    /// the machine is never in alone).
    public var startState: State { defaultAtomicState(entering: initial) }

    /// Whether the table has superstates: a flat machine has none.
    public var isNested: Bool { parent.contains { $0 >= 0 } }
}
