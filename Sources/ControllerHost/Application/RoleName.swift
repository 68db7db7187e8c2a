/// The name of an input or output role, as board files, scenarios, logs and the control
/// protocol write it (`coin`, `motor_up`). Short names are stored inline: copying one into a
/// ring on the event path allocates nothing.
public struct RoleName: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }
}
