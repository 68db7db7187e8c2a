/// One row a query returned, its values copied out of the statement.
struct SQLiteRow: Equatable, Sendable {
    /// The result columns' names, in order.
    let columns: [String]
    let values: [SQLiteValue]

    /// The value of the first column called `name` (SQLite's names ignore case), NULL if the
    /// query has no such column.
    subscript(_ name: String) -> SQLiteValue {
        guard let index = index(of: name) else { return .null }
        return values[index]
    }

    subscript(_ index: Int) -> SQLiteValue { values[index] }

    func hasColumn(_ name: String) -> Bool { index(of: name) != nil }

    private func index(of name: String) -> Int? {
        let lowered = name.lowercased()
        return columns.firstIndex { $0.lowercased() == lowered }
    }
}
