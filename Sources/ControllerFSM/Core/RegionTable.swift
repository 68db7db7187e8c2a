/// What only the configuration path of a machine with parallel regions reads
/// (`ObservedMachine.dispatchInRegions`): built only for such a machine, empty for the others,
/// so a flat or nested machine's rows carry nothing of it.
@usableFromInline
struct RegionTable {
    /// A row as the configuration path needs it, by the row's index in the table's `rows`.
    @usableFromInline
    struct Row {
        /// The state whose block holds the row.
        @usableFromInline let source: Int32
        /// The row as written: the same row is a candidate in every state inside its own, and
        /// is taken once.
        @usableFromInline let written: Int32
        /// The transition domain (-1: the top), for a row to states (not to a history).
        @usableFromInline let domain: Int32
        /// Its targets, at `targetOffset` in `targets`; none for an internal row.
        @usableFromInline let targetOffset: Int32
        @usableFromInline let targetCount: Int32
        /// Whether the row is local (`TransitionKind.local`).
        @usableFromInline let isLocal: Bool
        /// Whether a target is a history: then `domain` is worked out when the row is taken,
        /// from what the history stands for then (`ObservedMachine.domain(ofRegionRow:)`).
        @usableFromInline let targetsHistory: Bool
    }

    /// A run of `targets`: an initial state's, or a history default's.
    @usableFromInline
    struct Targets {
        @usableFromInline let offset: Int32
        @usableFromInline let count: Int32
    }

    /// By row, as the table's `rows`.
    @usableFromInline let rows: UnsafeMutableBufferPointer<Row>
    /// By initial state, as the table's `initials`.
    @usableFromInline let initialTargets: UnsafeMutableBufferPointer<Targets>
    /// By history slot: its default's targets.
    @usableFromInline let historyTargets: UnsafeMutableBufferPointer<Targets>
    /// Target states of rows, initial states and history defaults, in the runs above.
    @usableFromInline let targets: UnsafeMutableBufferPointer<Int32>
    /// Every state but the histories, parents before children, children in the order of the
    /// state enum: SCXML's document order, in which regions are offered an event and states
    /// entered (exits go in reverse).
    @usableFromInline let documentOrder: UnsafeMutableBufferPointer<Int32>
}
