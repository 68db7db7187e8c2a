import ControllerFSM

extension Board {
package typealias InputLine = BoardInputLine
package typealias OutputLine = BoardOutputLine
}

/// One `[inputs.<role>]` section.
package struct BoardInputLine: Hashable, Sendable {
    /// Which line on the chip.
    package var line: LineSelector
    /// Whether the active (logical 1) level is the low voltage; it is the only inversion.
    package var activeLow: Bool
    /// The pull resistor to request.
    package var bias: LineBias
    /// How long the line must stay stable before an edge is taken.
    package var debounce: Duration
}

/// One `[outputs.<role>]` section.
package struct BoardOutputLine: Hashable, Sendable {
    /// Which line on the chip.
    package var line: LineSelector
    /// Whether a logical 1 (asserted) is driven as the low voltage.
    package var activeLow: Bool
}
