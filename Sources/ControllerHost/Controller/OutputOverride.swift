import ControllerFSM

/// Why the host holds an output at a level other than the one the machine asks for.
public enum OutputOverride: UInt8, Hashable, Sendable, CustomStringConvertible {
    /// It drives what the machine asks.
    case none
    /// Another output of its interlock is on, and the interlock does not yield now.
    case interlock
    /// Its last write failed: the line keeps its old level.
    case writeFailed
    /// The controller stopped and drove the output's stop level.
    case stopLevel

    /// Each declared output's override from ``ControllerCore/overrideCodes``, by index.
    public static func decode(_ codes: UInt64, outputs count: Int) -> [OutputOverride] {
        (0..<Swift.min(count, 32)).map { OutputOverride(rawValue: UInt8((codes >> UInt64(2 * $0)) & 3)) ?? .none }
    }

    public var description: String {
        switch self {
        case .none: "driven as asked"
        case .interlock: "held off by its interlock"
        case .writeFailed: "its write failed"
        case .stopLevel: "held at its stop level"
        }
    }
}
