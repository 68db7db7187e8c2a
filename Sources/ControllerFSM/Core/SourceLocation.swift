/// Where a state block or a row was written, so that validation errors point at the code.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public let file: StaticString
    public let line: UInt

    public init(file: StaticString, line: UInt) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(fileName):\(line)" }

    /// The file as a `String`, decoded by hand because Embedded Swift cannot interpolate a
    /// `StaticString`.
    public var fileName: String {
        file.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }

    public static func == (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        lhs.line == rhs.line && lhs.fileName == rhs.fileName
    }
}
