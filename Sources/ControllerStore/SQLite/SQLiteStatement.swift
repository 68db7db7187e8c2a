import CSQLite

/// One prepared statement of a connection, finalized when dropped. Used only while its
/// connection's lock is held (`SQLiteConnection`), like the connection itself.
final class SQLiteStatement {
    private var handle: OpaquePointer?
    private let connection: OpaquePointer

    /// Prepares `sql`, which must be one statement.
    init(_ sql: String, on connection: OpaquePointer) throws(SQLiteError) {
        self.connection = connection
        var prepared: OpaquePointer?
        var rest = ""
        let code = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let code = csqlite_prepare_v2(connection, text, -1, &prepared, &tail)
            if let tail { rest = String(cString: tail) }
            return code
        }
        guard code == SQLiteError.ok, let prepared else {
            if let prepared { _ = csqlite_finalize(prepared) }
            throw SQLiteError(code: code == SQLiteError.ok ? SQLiteError.misuse : code, connection: code == SQLiteError.ok ? nil : connection)
        }
        handle = prepared
        guard rest.allSatisfy(\.isWhitespace) else {
            finalize()
            throw SQLiteError(code: SQLiteError.misuse, message: "more than one statement given to prepare: \(sql)")
        }
    }

    /// Takes over a statement `csqlite_prepare_v2` made.
    init(prepared: OpaquePointer, on connection: OpaquePointer) {
        handle = prepared
        self.connection = connection
    }

    deinit {
        finalize()
    }

    func finalize() {
        if let handle { _ = csqlite_finalize(handle) }
        handle = nil
    }

    /// Runs the statement with `arguments` to its end, ignoring any rows.
    func execute(_ arguments: [any SQLiteArgument] = []) throws(SQLiteError) {
        try start(arguments)
        while try step() {}
    }

    /// Runs the statement with `arguments` and returns every row.
    func rows(_ arguments: [any SQLiteArgument] = []) throws(SQLiteError) -> [SQLiteRow] {
        try start(arguments)
        var rows: [SQLiteRow] = []
        guard let handle else { return rows }
        var columns: [String]?
        while try step() {
            let count = Int(csqlite_column_count(handle))
            let names = columns ?? (0..<count).map { String(cString: csqlite_column_name(handle, Int32($0))) }
            columns = names
            rows.append(SQLiteRow(columns: names, values: (0..<count).map { value(at: Int32($0)) }))
        }
        return rows
    }

    /// Resets the statement (a cached one may have run before) and binds `arguments` to its
    /// parameters, in order.
    private func start(_ arguments: [any SQLiteArgument]) throws(SQLiteError) {
        guard let handle else { throw SQLiteError(code: SQLiteError.misuse, message: "the statement was finalized") }
        // A reset returns the last step's error again: that one was thrown when it happened.
        _ = csqlite_reset(handle)
        _ = csqlite_clear_bindings(handle)
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch argument.sqliteValue {
            case .null: code = csqlite_bind_null(handle, index)
            case .integer(let value): code = csqlite_bind_int64(handle, index, value)
            case .real(let value): code = csqlite_bind_double(handle, index, value)
            case .text(let value): code = csqlite_bind_text(handle, index, value, -1)
            case .blob: code = SQLiteError.misuse
            }
            guard code == SQLiteError.ok else { throw SQLiteError(code: code, connection: connection) }
        }
    }

    /// True with a row ready, false at the end.
    private func step() throws(SQLiteError) -> Bool {
        guard let handle else { return false }
        let code = csqlite_step(handle)
        switch code {
        case CSQLITE_ROW: return true
        case CSQLITE_DONE:
            // Reset at once: a finished statement that stays un-reset keeps its read
            // transaction's snapshot open in autocommit mode.
            _ = csqlite_reset(handle)
            return false
        default:
            let error = SQLiteError(code: code, connection: connection)
            _ = csqlite_reset(handle)
            throw error
        }
    }

    private func value(at column: Int32) -> SQLiteValue {
        guard let handle else { return .null }
        switch csqlite_column_type(handle, column) {
        case CSQLITE_INTEGER: return .integer(csqlite_column_int64(handle, column))
        case CSQLITE_FLOAT: return .real(csqlite_column_double(handle, column))
        case CSQLITE_TEXT:
            // Text first, its length after: asking for the bytes first could convert it.
            guard let text = csqlite_column_text(handle, column) else { return .text("") }
            let count = Int(csqlite_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case CSQLITE_BLOB:
            return .blob(byteCount: Int(csqlite_column_bytes(handle, column)))
        default: return .null
        }
    }
}
