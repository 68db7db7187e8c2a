#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One top-level value of a request object, decoded only as deep as the protocol needs: arrays
/// and objects are recognised, never descended into, so no input nests the decoder's work.
enum JSONField: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array
    case object

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if (try? container.decode([Skipped].self)) != nil {
            self = .array
        } else {
            _ = try container.decode([String: Skipped].self)
            self = .object
        }
    }

    /// How an error message shows the value.
    var shown: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let value): "the string \(ControlProtocolError.shown(value))"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Any value, left as it is.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}
