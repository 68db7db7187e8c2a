@testable import ControllerStore

/// Changes or makes the SQLite file at `path` with `sql` in one transaction, as another program
/// would (a hand edit, an invoice database), through the store's own SQLite layer: no journal
/// mode or anything else of the store's is set.
func runSQL(_ path: String, _ sql: String) throws {
    let connection = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMilliseconds: StoreLimits.busyTimeoutMilliseconds)
    try connection.write { db in try db.execute(sql) }
    try connection.close()
}

extension SQLiteDatabase {
    /// The integer the first row's first column holds, nil when there is no row or it holds
    /// something else.
    func int(_ sql: String) throws -> Int? { try value(sql)?.integer.map { Int($0) } }
}

extension SQLiteRow {
    /// The text in `column`, nil for any other storage class.
    func string(_ column: String) -> String? { self[column].text }
    /// The integer in `column`, nil for any other storage class.
    func int(_ column: String) -> Int? { self[column].integer.map { Int($0) } }
}
