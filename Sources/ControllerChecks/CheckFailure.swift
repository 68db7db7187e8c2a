/// Why a product check failed, in words a user acts on: what was seen, where, and what to change.
public struct CheckFailure: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
