/// A value as SQLite stores it: one of its five storage classes.
enum SQLiteValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// Its size only: the store writes no blob, and one read from the file is refused by its size.
    case blob(byteCount: Int)
}

/// A Swift value bound to a statement's `?` as SQLite stores it.
protocol SQLiteArgument {
    var sqliteValue: SQLiteValue { get }
}

extension Int64: SQLiteArgument {
    var sqliteValue: SQLiteValue { .integer(self) }
}

extension Int: SQLiteArgument {
    var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension String: SQLiteArgument {
    var sqliteValue: SQLiteValue { .text(self) }
}

extension Double: SQLiteArgument {
    var sqliteValue: SQLiteValue { .real(self) }
}

extension SQLiteValue: SQLiteArgument {
    var sqliteValue: SQLiteValue { self }
}

extension SQLiteValue {
    /// The integer, or nil for any other storage class (no conversion: a count stored as text
    /// is not a count).
    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The text, or nil for any other storage class.
    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}

extension String {
    /// The name as an SQL identifier, quoted, its own quotes doubled: a gauge's name becomes a
    /// column's whatever it holds.
    var quotedDatabaseIdentifier: String {
        "\"" + replacingQuotes() + "\""
    }

    private func replacingQuotes() -> String {
        var quoted = ""
        for character in self {
            quoted.append(character)
            if character == "\"" { quoted.append("\"") }
        }
        return quoted
    }
}
