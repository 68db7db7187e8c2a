import CSQLite

/// An open connection, as the closures of `SQLiteConnection.read` and `write` use it: only
/// while the connection's lock is held, never kept.
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?
    /// Statements the store runs in every batch, prepared once (`cached`).
    private var statements: [String: SQLiteStatement] = [:]

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        _ = close()
    }

    private func open() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError(code: SQLiteError.misuse, message: "the database connection is closed") }
        return handle
    }

    /// Finalizes every statement and closes the connection; SQLite's result code.
    func close() -> Int32 {
        guard let handle else { return SQLiteError.ok }
        for statement in statements.values { statement.finalize() }
        statements = [:]
        self.handle = nil
        return csqlite_close_v2(handle)
    }

    /// Runs `sql`, one statement or several separated by semicolons, ignoring any rows.
    /// `arguments` go to a single statement's parameters.
    func execute(_ sql: String, _ arguments: [any SQLiteArgument] = []) throws(SQLiteError) {
        let connection = try open()
        if !arguments.isEmpty {
            try SQLiteStatement(sql, on: connection).execute(arguments)
            return
        }
        let failure = sql.withCString { (text) -> SQLiteError? in
            var next: UnsafePointer<CChar>? = text
            while let current = next, current.pointee != 0 {
                var prepared: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = csqlite_prepare_v2(connection, current, -1, &prepared, &tail)
                guard code == SQLiteError.ok else { return SQLiteError(code: code, connection: connection) }
                // Nothing but a comment or spaces left: no statement, and the end.
                guard let prepared else { return nil }
                do throws(SQLiteError) {
                    try SQLiteStatement(prepared: prepared, on: connection).execute()
                } catch {
                    return error
                }
                next = tail
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Every row `sql` returns.
    func rows(_ sql: String, _ arguments: [any SQLiteArgument] = []) throws(SQLiteError) -> [SQLiteRow] {
        try SQLiteStatement(sql, on: try open()).rows(arguments)
    }

    /// The first row `sql` returns, nil when none.
    func row(_ sql: String, _ arguments: [any SQLiteArgument] = []) throws(SQLiteError) -> SQLiteRow? {
        try rows(sql, arguments).first
    }

    /// The first column's value of the first row, nil when no row.
    func value(_ sql: String, _ arguments: [any SQLiteArgument] = []) throws(SQLiteError) -> SQLiteValue? {
        try row(sql, arguments).map { $0[0] }
    }

    /// The statement for `sql`, prepared on first use and kept until the connection closes:
    /// the recorder runs the same few statements in every batch.
    func cached(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try SQLiteStatement(sql, on: try open())
        statements[sql] = statement
        return statement
    }

    /// Rows the last INSERT, UPDATE or DELETE changed.
    var changesCount: Int {
        handle.map { Int(csqlite_changes($0)) } ?? 0
    }

    /// The rowid of the last row inserted.
    var lastInsertedRowID: Int64 {
        handle.map { csqlite_last_insert_rowid($0) } ?? 0
    }

    /// Whether a transaction is open (SQLite rolls some failures back by itself).
    var isInsideTransaction: Bool {
        handle.map { csqlite_get_autocommit($0) == 0 } ?? false
    }

    /// The names of `table`'s columns, in order.
    func columns(in table: String) throws(SQLiteError) -> [String] {
        try rows("PRAGMA table_info(\(table.quotedDatabaseIdentifier))").compactMap { $0["name"].text }
    }

    func tableExists(_ table: String) throws(SQLiteError) -> Bool {
        try value("SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?)", [table]) == .integer(1)
    }

    /// Runs `body` in a transaction begun with `begin`: committed when it returns, rolled back
    /// when it (or the commit) throws.
    func inTransaction<T>(_ begin: String, _ body: (SQLiteDatabase) throws -> T) throws -> T {
        try execute(begin)
        let result: T
        do {
            result = try body(self)
            try execute("COMMIT")
        } catch {
            // SQLite may have rolled back already (a full disk, an I/O error): a second
            // rollback would only fail.
            if isInsideTransaction { try? execute("ROLLBACK") }
            throw error
        }
        return result
    }
}
