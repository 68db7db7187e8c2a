/// The compiled machine: every legal move, in a fixed-size table indexed by (state, event).
///
/// Rows for one (state, event) pair sit contiguously in `rows`, in the order written; `rowStart`
/// says where each pair's rows begin, so a lookup is two array reads. It is immutable and built
/// once; dispatch only reads it.
public final class TransitionTable<State: MachineSymbol, Event: MachineSymbol, Context>: @unchecked Sendable {
    // Safety: @unchecked only because the buffers are pointers; they are written once in `init`,
    // never after, and freed in `deinit`.
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

    @usableFromInline let rows: UnsafeMutableBufferPointer<Row>
    @usableFromInline let rowStart: UnsafeMutableBufferPointer<Int32>
    @usableFromInline let entry: UnsafeMutableBufferPointer<MachineAction<State, Event, Context>?>
    @usableFromInline let exit: UnsafeMutableBufferPointer<MachineAction<State, Event, Context>?>
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
        self.rows = Self.copy(rows)
        self.rowStart = Self.copy(rowStart)
        self.rowInfo = info
        self.entry = Self.copy(states.map { definition.blocks[blockOfState[$0.index]].entry })
        self.exit = Self.copy(states.map { definition.blocks[blockOfState[$0.index]].exit })
        self.eventCount = events.count
        self.initial = definition.initial
        self.warnings = warnings
    }

    /// The table lives in buffers of its own rather than arrays: dispatch reads them without
    /// bounds checks or reloading the array after each closure call.
    private static func copy<Elements: Collection>(_ elements: Elements) -> UnsafeMutableBufferPointer<Elements.Element> {
        let buffer = UnsafeMutableBufferPointer<Elements.Element>.allocate(capacity: elements.count)
        _ = buffer.initialize(from: elements)
        return buffer
    }

    deinit {
        rows.deinitialize().deallocate()
        rowStart.deinitialize().deallocate()
        entry.deinitialize().deallocate()
        exit.deinitialize().deallocate()
    }

    /// The rows that answer `event` in `state`, in the order they are tried.
    public func rows(for state: State, _ event: Event) -> ArraySlice<RowInfo> {
        let key = state.index * eventCount + event.index
        return rowInfo[Int(rowStart[key])..<Int(rowStart[key + 1])]
    }
}
