import ControllerFSM

extension Board {
public typealias InputLine = BoardInputLine
public typealias OutputLine = BoardOutputLine
}

/// One `[inputs.<role>]` section.
public struct BoardInputLine: Hashable, Sendable {
    /// Which line on the chip.
    public package(set) var line: LineSelector
    /// Whether the active (logical 1) level is the low voltage; it is the only inversion.
    public package(set) var activeLow: Bool
    /// The pull resistor to request.
    public package(set) var bias: LineBias
    /// How long the line must stay stable before an edge is taken.
    public package(set) var debounce: Duration
}

/// One `[outputs.<role>]` section.
public struct BoardOutputLine: Hashable, Sendable {
    /// Which line on the chip.
    public package(set) var line: LineSelector
    /// Whether a logical 1 (asserted) is driven as the low voltage.
    public package(set) var activeLow: Bool
}
