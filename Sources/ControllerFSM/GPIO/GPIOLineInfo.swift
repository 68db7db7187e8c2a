/// What the chip says about one line, as `gpioinfo` shows it.
public struct GPIOLineInfo: Hashable, Sendable {
    public enum Direction: String, Hashable, Sendable {
        case input, output
    }

    public var offset: GPIOLineOffset
    /// The line's name (e.g. `GPIO17`); empty when the chip leaves it unnamed.
    public var name: String
    /// Who holds the line (e.g. `turnstiled`); `nil` when it is free.
    public var consumer: String?
    public var direction: Direction
    public var activeLow: Bool
    /// The pull the line has; `nil` when the kernel does not say.
    public var bias: LineBias?

    public init(
        offset: GPIOLineOffset, name: String, consumer: String?, direction: Direction,
        activeLow: Bool, bias: LineBias?
    ) {
        self.offset = offset
        self.name = name
        self.consumer = consumer
        self.direction = direction
        self.activeLow = activeLow
        self.bias = bias
    }

    /// Whether a consumer holds the line.
    public var isUsed: Bool { consumer != nil }

    /// The line as error messages name it.
    public var id: GPIOLineID { GPIOLineID(offset: offset, name: name.isEmpty ? nil : name) }
}
