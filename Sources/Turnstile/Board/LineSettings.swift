/// The pull resistor an input line asks the chip for.
public enum Bias: String, CaseIterable, Hashable, Sendable {
    /// Leave whatever the chip or a device-tree overlay configured.
    case asIs = "as-is"
    /// No pull: the line floats unless the circuit drives it.
    case disabled
    /// Pulled to the high level: the usual choice for a switch to ground (with `active_low`).
    case pullUp = "pull-up"
    /// Pulled to the low level.
    case pullDown = "pull-down"
}

extension BoardFile {
    /// One `[inputs.<role>]` section.
    public struct InputLine: Hashable, Sendable {
        /// Which line on the chip.
        public var line: LineSelector
        /// Whether the active (logical 1) level is the low voltage; it is the only inversion.
        public var activeLow: Bool
        /// The pull resistor to request.
        public var bias: Bias
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
