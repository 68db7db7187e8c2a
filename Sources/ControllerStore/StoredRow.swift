import ControllerFSM
import ControllerHost

/// A row read from the database, each value checked before it is used: the file is only as
/// trustworthy as whatever last wrote it (a hand edit, another program, a restored backup), and
/// `quick_check` finds damage, not nonsense: SQLite's columns take any type (text in an INTEGER
/// column), and a count of Int64.max traps on the first increment. Each is refused here with the table, row, column and value
/// (`StoreError.invalidValue`).
struct StoredRow {
    let row: SQLiteRow
    let table: String
    let path: String
    /// The daemon whose database it is (`turnstiled`), as the error names it.
    let daemon: String
    /// How the error names the row: `id 3`, `kind coins`, `day 2024-03-01, kind coins`.
    let name: String

    /// `keys` are the columns that name the row (its `id` if it has one, else all columns).
    init(_ row: SQLiteRow, table: String, path: String, daemon: String, keys: [String] = ["id"]) {
        self.row = row
        self.table = table
        self.path = path
        self.daemon = daemon
        let named = keys.filter { row.hasColumn($0) }
        name = named.isEmpty ? "?" : named.map { "\($0) \(Self.describe(row[$0], quoted: true))" }.joined(separator: ", ")
    }

    init(_ row: SQLiteRow, table: String, path: String, daemon: String, key: String) {
        self.init(row, table: table, path: path, daemon: daemon, keys: [key])
    }

    private func invalid(_ column: String, _ expected: String) -> StoreError {
        .invalidValue(
            path: path, table: table, row: name, column: column, value: Self.describe(row[column]),
            expected: expected, daemon: daemon)
    }

    /// A count, gauge or total: an integer in 0...`StoreLimits.maximumCount`.
    func count(_ column: String) throws(StoreError) -> Int {
        let expected = "an integer from 0 to \(StoreLimits.maximumCount)"
        guard case .integer(let value) = row[column], value >= 0, value <= Int64(StoreLimits.maximumCount) else {
            throw invalid(column, expected)
        }
        return Int(value)
    }

    /// Any integer (a time), or nil for NULL.
    func optionalInteger(_ column: String) throws(StoreError) -> Int64? {
        switch row[column] {
        case .null: return nil
        case .integer(let value): return value
        default: throw invalid(column, "an integer or NULL")
        }
    }

    /// A row id or an event's sequence: an integer from 0.
    func identifier(_ column: String) throws(StoreError) -> Int64 {
        guard case .integer(let value) = row[column], value >= 0 else { throw invalid(column, "an integer from 0") }
        return value
    }

    /// Text, or nil for NULL.
    func optionalText(_ column: String) throws(StoreError) -> String? {
        if case .null = row[column] { return nil }
        return try text(column)
    }

    func text(_ column: String) throws(StoreError) -> String {
        guard case .text(let value) = row[column] else { throw invalid(column, "text") }
        return value
    }

    /// A state's name, one of `names` (the machine's, by raw value).
    func state<State: MachineSymbol>(_ column: String, names: [String]) throws(StoreError) -> State {
        guard case .text(let value) = row[column],
            let index = names.firstIndex(of: value), let state = State(rawValue: index)
        else { throw invalid(column, "a state's name (\(names.joined(separator: ", ")))") }
        return state
    }

    /// A value as the message shows it: text quoted (and cut short: a row may hold megabytes).
    /// `quoted` shows text as `"coins"` (a row's key), else as `the text "coins"` (a value).
    static func describe(_ value: SQLiteValue, quoted: Bool = false) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let value): return "\(value)"
        case .real(let value): return "the real number \(value)"
        case .text(let text):
            // A row may hold megabytes and any bytes: shown as every message quotes text from
            // outside (escaped and bounded).
            let cut = "\"\(text.shown)\""
            return quoted ? cut : "the text \(cut)"
        case .blob(let count): return "a blob of \(count) bytes"
        }
    }
}
