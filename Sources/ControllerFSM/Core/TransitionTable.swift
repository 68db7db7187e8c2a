/// The compiled machine: every legal move, in a fixed-size table indexed by (state, event).
///
/// Rows for one (state, event) pair sit contiguously in `rows`, in the order written; `rowStart`
/// says where each pair's rows begin, so a lookup is two array reads. In a nested machine a
/// state's rows are followed by its superstates' rows for the same event, innermost first, each
/// with the states it exits and enters worked out here: dispatch walks no hierarchy and
/// searches nothing. It is immutable and built once; dispatch only reads it.
public final class TransitionTable<State: MachineSymbol, Event: MachineSymbol, Context>: @unchecked Sendable {
    // Safety: @unchecked only because the buffers are pointers; they are written once in `init`,
    // never after, and freed with the table (by its `TableStorage`).
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
        /// How many states the move exits, the current innermost state first; `toHistory` for
        /// a row to a history, whose exits are worked out when it is taken.
        @usableFromInline let exitCount: Int32
        /// The states it enters, outermost first, at `entryOffset` in the table's `paths`.
        @usableFromInline let entryOffset: Int32
        @usableFromInline let entryCount: Int32
        /// The state whose block holds the row, and whether it is local: what a row to a
        /// history needs to find its domain when it is taken.
        @usableFromInline let source: Int32
        @usableFromInline let isLocal: Bool
        /// `exitCount` of a row to a history.
        @usableFromInline static var toHistory: Int32 { -1 }

        init(
            condition: (@Sendable (Context) -> Bool)?, target: State?, action: MachineAction<State, Event, Context>?,
            isSimple: Bool = true, exitCount: Int32 = 1, entryOffset: Int32 = 0, entryCount: Int32 = 1,
            source: Int32 = -1, isLocal: Bool = false
        ) {
            self.condition = condition
            self.target = target
            self.action = action
            self.isSimple = isSimple
            self.exitCount = exitCount
            self.entryOffset = entryOffset
            self.entryCount = entryCount
            self.source = source
            self.isLocal = isLocal
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

        init(
            condition: (@Sendable (Context) -> Bool)?, entryOffset: Int32, entryCount: Int32,
            action: MachineAction<State, Event, Context>?
        ) {
            self.condition = condition
            self.entryOffset = entryOffset
            self.entryCount = entryCount
            self.action = action
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

    /// Owns every buffer below and the objects the `Unmanaged` ones point to.
    private let storage: TableStorage
    /// Unretained: `storage` keeps the rows alive.
    @usableFromInline let rows: UnsafeMutableBufferPointer<Unmanaged<Row>>
    @usableFromInline let rowStart: UnsafeMutableBufferPointer<Int32>
    /// Indexed by state; held like `rows`.
    @usableFromInline let work: UnsafeMutableBufferPointer<Unmanaged<StateWork>>
    /// Columns per state: one per event, then one for the eventless rows.
    @usableFromInline let columns: Int
    /// Whether any state has eventless rows: only then does a step look for them.
    @usableFromInline let hasEventless: Bool

    // The nesting, by state index (see `StateHierarchy`); all empty-handed for a flat machine.
    /// Each state's superstate, -1 at the top.
    @usableFromInline let parent: UnsafeMutableBufferPointer<Int32>
    /// A state's children (histories not counted) are `children[childStart[s] ..< childStart[s + 1]]`.
    @usableFromInline let childStart: UnsafeMutableBufferPointer<Int32>
    @usableFromInline let children: UnsafeMutableBufferPointer<Int32>
    /// States entered by rows and initial states, in runs the rows and initials point into.
    @usableFromInline let paths: UnsafeMutableBufferPointer<Int32>
    /// A superstate's initial states are `initials[initialStart[s] ..< initialStart[s + 1]]`;
    /// an empty range marks a state without children.
    @usableFromInline let initialStart: UnsafeMutableBufferPointer<Int32>
    @usableFromInline let initials: UnsafeMutableBufferPointer<Unmanaged<Initial>>
    /// For a history pseudo-state its slot in the machine's history memory, else -1.
    @usableFromInline let historySlot: UnsafeMutableBufferPointer<Int32>
    /// By slot: whether the history is deep, the state it enters before anything is
    /// remembered, and its default's action (held like `initials`).
    @usableFromInline let historyIsDeep: UnsafeMutableBufferPointer<Bool>
    @usableFromInline let historyDefault: UnsafeMutableBufferPointer<Int32>
    @usableFromInline let historyDefaults: UnsafeMutableBufferPointer<Unmanaged<Initial>>
    /// The history slots a state's exit records: `recordedSlots[recordStart[s] ..< recordStart[s + 1]]`.
    @usableFromInline let recordStart: UnsafeMutableBufferPointer<Int32>
    @usableFromInline let recordedSlots: UnsafeMutableBufferPointer<Int32>
    /// How many history pseudo-states the machine has: the size of its history memory.
    public let historyCount: Int
    /// For a final state: the raw value of the event its superstate sends when it is entered,
    /// -1 when it sends none; -2 for a state that is not final.
    @usableFromInline let doneOnEntry: UnsafeMutableBufferPointer<Int32>
    /// By state: the done event it sends itself (-1: none), as `doneOnEntry` holds its parent's.
    @usableFromInline let doneEvent: UnsafeMutableBufferPointer<Int32>
    /// By state: whether it holds parallel regions.
    @usableFromInline let isParallel: UnsafeMutableBufferPointer<Bool>

    /// Whether any state holds parallel regions. A machine with a parallel state takes every
    /// event through the configuration path (`ObservedMachine.dispatchInRegions`), SCXML's
    /// algorithm over the set of active states, which reads `regions`; a machine without one
    /// never enters it, and its `regions` is empty.
    @usableFromInline let hasRegions: Bool
    @usableFromInline let regions: RegionTable

    init(definition: MachineDefinition<State, Event, Context>, blockOfState: [Int], hierarchy: StateHierarchy, warnings: [String]) {
        var builder = TransitionTableBuilder(definition: definition, blockOfState: blockOfState, hierarchy: hierarchy)
        let storage = TableStorage()
        self.storage = storage
        let candidates = builder.candidateRows()
        let initials = builder.initialStates()
        let histories = builder.historyDefaults()
        let records = builder.historyRecords()
        let nesting = builder.children()
        let done = builder.doneEvents()
        rows = storage.references(candidates.rows)
        rowStart = storage.buffer(candidates.rowStart)
        candidateInfo = candidates.info
        rowInfo = builder.writtenRows()
        work = storage.references(builder.stateWork())
        columns = builder.triggers.count
        hasEventless = builder.hasEventless
        initial = definition.initial
        initialInfo = initials.info
        historyInfo = definition.histories.map {
            HistoryInfo(state: $0.state, superstate: $0.parent, isDeep: $0.deep, defaultTargets: $0.defaultTargets)
        }
        self.warnings = warnings
        parent = storage.buffer(hierarchy.parent.map { Int32($0) })
        childStart = storage.buffer(nesting.start)
        children = storage.buffer(nesting.children)
        paths = storage.buffer(builder.paths)
        initialStart = storage.buffer(initials.start)
        self.initials = storage.references(initials.initials)
        historySlot = storage.buffer(hierarchy.historySlot.map { Int32($0) })
        historyIsDeep = storage.buffer(histories.isDeep)
        historyDefault = storage.buffer(histories.defaultState)
        historyDefaults = storage.references(histories.actions)
        recordStart = storage.buffer(records.start)
        recordedSlots = storage.buffer(records.slots)
        historyCount = definition.histories.count
        doneOnEntry = storage.buffer(done.onEntry)
        doneEvent = storage.buffer(done.own)
        isParallel = storage.buffer(hierarchy.isParallel)
        hasRegions = hierarchy.isParallel.contains(true)
        // Built only for a machine with regions: the others never read it.
        regions = RegionTable(
            rows: storage.buffer(hasRegions ? candidates.regionRows : []),
            initialTargets: storage.buffer(hasRegions ? initials.targets : []),
            historyTargets: storage.buffer(hasRegions ? histories.targets : []),
            targets: storage.buffer(hasRegions ? Array(builder.targets) : []),
            documentOrder: storage.buffer(hasRegions ? nesting.documentOrder : []))
    }

    /// Whether `state` is `ancestor` or inside it (-1, the top, holds every state).
    @inlinable
    func isInside(_ state: Int, _ ancestor: Int) -> Bool {
        isState(state, inside: ancestor) { Int(parent[$0]) }
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

    /// The configuration of a machine without parallel regions whose innermost state is
    /// `state`: it and its superstates. For tests and tools that name one state; a machine with
    /// regions has one innermost state per region, so take its ``ObservedMachine/configuration``.
    public func configuration(at state: State) -> ActiveConfiguration<State> {
        precondition(!hasRegions, "a machine with parallel regions is in several innermost states: take the running machine's configuration")
        return ActiveConfiguration(state: state, owner: self, parent: parent.baseAddress!, active: [])
    }

    /// The configuration the machine starts in unless an initial's guard says otherwise: every
    /// region's default state (``startStates``) and the superstates around them.
    public var startConfiguration: ActiveConfiguration<State> {
        let start = startStates
        guard hasRegions else { return configuration(at: start[0]) }
        var active = ContiguousArray(repeating: false, count: work.count)
        for state in start {
            var walker = state.index
            while walker >= 0 {
                active[walker] = true
                walker = Int(parent[walker])
            }
        }
        return ActiveConfiguration(state: start[0], owner: self, parent: parent.baseAddress!, active: active)
    }

    /// Whether some state holds parallel regions: several innermost states may be active.
    public var hasParallelRegions: Bool { hasRegions }

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

    /// The atomic states entering `state` leads to when no initial's guard says otherwise: as
    /// ``defaultAtomicState(entering:)``, but a parallel state leads into every region (one
    /// state per region, in declaration order).
    public func defaultAtomicStates(entering state: State) -> [State] {
        var current = state
        if isHistory(current), let history = historyInfo.first(where: { $0.state == current }) {
            current = history.defaultTarget
        }
        if isParallelState(current) {
            return State.allCases.filter { parent(of: $0) == current && !isHistory($0) }.flatMap { defaultAtomicStates(entering: $0) }
        }
        guard isSuperstate(current) else { return [current] }
        if let initial = initialInfo.last(where: { $0.superstate == current }) { return defaultAtomicStates(entering: initial.target) }
        if let child = State.allCases.first(where: { parent(of: $0) == current && !isHistory($0) }) { return defaultAtomicStates(entering: child) }
        return [current]
    }

    /// Every region's atomic state the machine starts in unless an initial's guard says
    /// otherwise: ``startState`` alone without parallel regions.
    public var startStates: [State] { defaultAtomicStates(entering: initial) }

    /// The atomic state the machine starts in unless an initial's guard says otherwise: what a
    /// host shows and records before `start()` (the table's `initial` may be a superstate, which
    /// the machine is never in alone).
    public var startState: State { defaultAtomicState(entering: initial) }

    /// Whether the table has superstates: a flat machine has none.
    public var isNested: Bool { parent.contains { $0 >= 0 } }
}
