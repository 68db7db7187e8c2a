/// A TOML document as ``TOMLReader`` hands it on: every table in one array, the root first, so
/// that a header or dotted key deep in the file can add to a table made lines earlier without
/// reference types, and a value names its table by index.
package struct TOMLDocument: Sendable {
    /// Where a table sits in ``tables``.
    package typealias TableID = Int

    /// The document's top level, which key-values before the first header go into.
    package static let root: TableID = 0

    package internal(set) var tables = [TOMLTable(origin: .header)]

    /// The value at the dotted `path` from the root, for tests and tools; nil where any part is
    /// absent or not a table.
    package func value(at path: [String]) -> TOMLValue? {
        var table = Self.root
        for (index, key) in path.enumerated() {
            guard let value = tables[table][key] else { return nil }
            if index == path.count - 1 { return value }
            guard let child = value.table else { return nil }
            table = child
        }
        return nil
    }
}

/// One table: its keys in the order the file gives them, which is the order unknown keys are
/// reported in.
package struct TOMLTable: Sendable {
    /// How the table came to be, which decides what may still add to it (TOML 1.0): a `[a.b]`
    /// header makes `a` implicit, and `[a]` may then define it once; a header or dotted keys
    /// define a table once; an inline table is whole where it closes.
    package enum Origin: Sendable {
        case implicit, header, dotted, inline
    }

    package internal(set) var origin: Origin
    package private(set) var keys: [String] = []
    package private(set) var values: [TOMLValue] = []
    private var indices: [String: Int] = [:]

    init(origin: Origin) {
        self.origin = origin
    }

    package subscript(key: String) -> TOMLValue? {
        indices[key].map { values[$0] }
    }

    /// Adds `key`, which the reader has checked is new.
    mutating func insert(_ key: String, _ value: TOMLValue) {
        indices[key] = values.count
        keys.append(key)
        values.append(value)
    }
}

/// A value of the kinds board files use. Dates and times are refused by the reader: no board key
/// takes one.
package enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case float(Double)
    case bool(Bool)
    case array([TOMLValue])
    case table(TOMLDocument.TableID)

    package var string: String? {
        if case .string(let string) = self { string } else { nil }
    }

    package var int: Int? {
        if case .integer(let integer) = self { integer } else { nil }
    }

    package var double: Double? {
        if case .float(let double) = self { double } else { nil }
    }

    package var bool: Bool? {
        if case .bool(let bool) = self { bool } else { nil }
    }

    package var array: [TOMLValue]? {
        if case .array(let array) = self { array } else { nil }
    }

    package var table: TOMLDocument.TableID? {
        if case .table(let table) = self { table } else { nil }
    }

    /// The kind's name as messages give it (TOMLKit's words, which tests and users know):
    /// `integer`, `floating-point number`, `bool`.
    package var kindName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .float: "floating-point number"
        case .bool: "bool"
        case .array: "array"
        case .table: "table"
        }
    }
}
