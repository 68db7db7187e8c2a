import Foundation

/// `text` decoded as `Value`, or a failure that says what the text was, what it should have been,
/// and how it starts: every document the checks read (a daemon's replies and records, `fleet`'s
/// listing, the Prometheus parser's families) goes through here.
func decodeJSON<Value: Decodable>(_ text: String, as _: Value.Type = Value.self, what: String, expected: String) throws(CheckFailure) -> Value {
    do {
        return try JSONDecoder().decode(Value.self, from: Data(text.utf8))
    } catch {
        throw CheckFailure("\(what) is not \(expected) (\(error)): \(text.prefix(300))")
    }
}

/// A JSON value, as far as the checks read one (a fractional number or a null is `other`).
indirect enum JSONField: Decodable, Sendable, CustomStringConvertible {
    case integer(Int), flag(Bool), text(String), object([String: JSONField]), list([JSONField]), other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self) { self = .integer(value) }
        else if let value = try? container.decode(Bool.self) { self = .flag(value) }
        else if let value = try? container.decode(String.self) { self = .text(value) }
        else if let value = try? container.decode([String: JSONField].self) { self = .object(value) }
        else if let value = try? container.decode([JSONField].self) { self = .list(value) }
        else { self = .other }
    }

    /// The value much as JSON writes it, for a failure's message.
    var description: String {
        switch self {
        case .integer(let value): "\(value)"
        case .flag(let value): "\(value)"
        case .text(let value): "\"\(value)\""
        case .object(let fields): "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        case .list(let items): "[" + items.map(\.description).joined(separator: ",") + "]"
        case .other: "…"
        }
    }
}
