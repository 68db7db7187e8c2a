/// A line's position on its chip, as the kernel numbers it (the first column of `gpioinfo`).
///
/// A distinct type rather than a bare `UInt32` so that an offset cannot be mistaken for the
/// line's index within a request, which is what edge events and reads use.
public struct GPIOLineOffset: RawRepresentable, Hashable, Comparable, Sendable,
    ExpressibleByIntegerLiteral, CustomStringConvertible
{
    public var rawValue: UInt32

    /// The largest offset any GPIO chip can have: the kernel counts a chip's lines in 16 bits.
    public static let largest = GPIOLineOffset(UInt32(UInt16.max))

    @inlinable
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    @inlinable
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    @inlinable
    public init(integerLiteral value: UInt32) { self.rawValue = value }

    @inlinable
    public static func < (lhs: GPIOLineOffset, rhs: GPIOLineOffset) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String { String(rawValue) }
}

/// A line as error messages name it: its offset and, when the chip reports one, its name.
public struct GPIOLineID: Hashable, Sendable, CustomStringConvertible {
    public var offset: GPIOLineOffset
    /// The line's name on its chip (e.g. `GPIO17`), or `nil` when the chip leaves it unnamed.
    public var name: String?

    public init(offset: GPIOLineOffset, name: String? = nil) {
        self.offset = offset
        self.name = name
    }

    /// `line 17 "GPIO17"`, or `line 17` for an unnamed line.
    public var description: String {
        if let name, !name.isEmpty { return "line \(offset) \"\(name)\"" }
        return "line \(offset)"
    }
}
