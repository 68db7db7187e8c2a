import ControllerFSM

extension BoardFile {
    /// One `[inputs.<role>]` section.
    public struct InputLine: Hashable, Sendable {
        /// Which line on the chip.
        public var line: LineSelector
        /// Whether the active (logical 1) level is the low voltage; it is the only inversion.
        public var activeLow: Bool
        /// The pull resistor to request.
        public var bias: LineBias
        /// How long the line must stay stable before an edge is taken.
        public var debounce: Duration
    }

    /// One `[outputs.<role>]` section.
    public struct OutputLine: Hashable, Sendable {
        /// Which line on the chip.
        public var line: LineSelector
        /// Whether a logical 1 (asserted) is driven as the low voltage.
        public var activeLow: Bool
    }
}
