/// The compiled machine: every legal move, in a fixed-size table indexed by (state, event).
///
/// Rows for one (state, event) pair sit contiguously in `rows`, in the order written; `rowStart`
/// says where each pair's rows begin, so a lookup is two array reads. It is immutable and built
/// once; dispatch only reads it.
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

        init(condition: (@Sendable (Context) -> Bool)?, target: State?, action: MachineAction<State, Event, Context>?) {
            self.condition = condition
            self.target = target
            self.action = action
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

    /// Each retained once by `init`, released by `deinit`.
    @usableFromInline let rows: UnsafeMutableBufferPointer<Unmanaged<Row>>
    @usableFromInline let rowStart: UnsafeMutableBufferPointer<Int32>
    /// Indexed by state; retained like `rows`.
    @usableFromInline let work: UnsafeMutableBufferPointer<Unmanaged<StateWork>>
    @usableFromInline let eventCount: Int

    init(definition: MachineDefinition<State, Event, Context>, blockOfState: [Int], warnings: [String]) {
        let states = Array(State.allCases)
        let events = Array(Event.allCases)
        var rows = ContiguousArray<Unmanaged<Row>>()
        var rowStart = ContiguousArray<Int32>()
        var info: [RowInfo] = []
        rowStart.reserveCapacity(states.count * events.count + 1)
        for state in states {
            let block = definition.blocks[blockOfState[state.index]]
            for event in events {
                rowStart.append(Int32(rows.count))
                for spec in block.rows where spec.event == event {
                    rows.append(.passRetained(Row(condition: spec.guard?.condition, target: spec.target, action: spec.action)))
                    info.append(RowInfo(from: state, event: event, guardLabel: spec.guard?.label, target: spec.target, location: spec.location))
                }
            }
        }
        rowStart.append(Int32(rows.count))
        self.rows = Self.copy(rows)
        self.rowStart = Self.copy(rowStart)
        self.rowInfo = info
        self.work = Self.copy(states.map { state in
            let block = definition.blocks[blockOfState[state.index]]
            return Unmanaged.passRetained(StateWork(entry: block.entry, exit: block.exit))
        })
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
        for row in rows { row.release() }
        for stateWork in work { stateWork.release() }
        rows.deinitialize().deallocate()
        rowStart.deinitialize().deallocate()
        work.deinitialize().deallocate()
    }


    /// What dispatch reads, copied into each machine: a machine reads its table's buffers
    /// directly, one load fewer per event than through the table object. Valid while the table
    /// lives; the machine holds it.
    @usableFromInline
    struct DispatchView {
        @usableFromInline let rows: UnsafeMutablePointer<Unmanaged<Row>>
        @usableFromInline let rowStart: UnsafeMutablePointer<Int32>
        @usableFromInline let work: UnsafeMutablePointer<Unmanaged<StateWork>>
        @usableFromInline let eventCount: Int
    }

    @usableFromInline
    var dispatchView: DispatchView {
        DispatchView(rows: rows.baseAddress!, rowStart: rowStart.baseAddress!, work: work.baseAddress!, eventCount: eventCount)
    }

    /// The rows that answer `event` in `state`, in the order they are tried.
    public func rows(for state: State, _ event: Event) -> ArraySlice<RowInfo> {
        let key = state.index * eventCount + event.index
        return rowInfo[Int(rowStart[key])..<Int(rowStart[key + 1])]
    }
}
