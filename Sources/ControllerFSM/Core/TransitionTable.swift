/// The compiled machine: every legal move, in a fixed-size table indexed by (state, event).
///
/// Rows for one (state, event) pair sit contiguously in `rows`, in the order written; `rowStart`
/// says where each pair's rows begin, so a lookup is two array reads. It is immutable and built
/// once; dispatch only reads it.
public final class TransitionTable<State: MachineSymbol, Event: MachineSymbol, Context>: Sendable {
    /// One row as dispatch needs it. Labels and source lines live in `rowInfo`, off the hot path.
    @usableFromInline
    struct Row: Sendable {
        @usableFromInline let condition: (@Sendable (Context) -> Bool)?
        @usableFromInline let target: State?
        @usableFromInline let action: MachineAction<State, Event, Context>?
    }

    /// A row as diagrams and queries see it.
    public struct RowInfo: Sendable {
        public let from: State
        public let event: Event
        public let guardLabel: String?
        /// `nil` for an internal transition.
        public let target: State?
        public let location: SourceLocation
    }

    public let initial: State
    /// Non-fatal findings from compilation: states with no way out, events no state answers.
    public let warnings: [String]
    /// Every row, grouped by state in declaration order of the states, then by event.
    public let rowInfo: [RowInfo]

    @usableFromInline let rows: ContiguousArray<Row>
    @usableFromInline let rowStart: ContiguousArray<Int32>
    @usableFromInline let entry: ContiguousArray<MachineAction<State, Event, Context>?>
    @usableFromInline let exit: ContiguousArray<MachineAction<State, Event, Context>?>
    @usableFromInline let eventCount: Int

    init(definition: MachineDefinition<State, Event, Context>, blockOfState: [Int], warnings: [String]) {
        let states = Array(State.allCases)
        let events = Array(Event.allCases)
        var rows = ContiguousArray<Row>()
        var rowStart = ContiguousArray<Int32>()
        var info: [RowInfo] = []
        rowStart.reserveCapacity(states.count * events.count + 1)
        for state in states {
            let block = definition.blocks[blockOfState[state.index]]
            for event in events {
                rowStart.append(Int32(rows.count))
                for spec in block.rows where spec.event == event {
                    rows.append(Row(condition: spec.guard?.condition, target: spec.target, action: spec.action))
                    info.append(RowInfo(from: state, event: event, guardLabel: spec.guard?.label, target: spec.target, location: spec.location))
                }
            }
        }
        rowStart.append(Int32(rows.count))
        self.rows = rows
        self.rowStart = rowStart
        self.rowInfo = info
        self.entry = ContiguousArray(states.map { definition.blocks[blockOfState[$0.index]].entry })
        self.exit = ContiguousArray(states.map { definition.blocks[blockOfState[$0.index]].exit })
        self.eventCount = events.count
        self.initial = definition.initial
        self.warnings = warnings
    }

    /// The rows that answer `event` in `state`, in the order they are tried.
    public func rows(for state: State, _ event: Event) -> ArraySlice<RowInfo> {
        let key = state.index * eventCount + event.index
        return rowInfo[Int(rowStart[key])..<Int(rowStart[key + 1])]
    }
}
