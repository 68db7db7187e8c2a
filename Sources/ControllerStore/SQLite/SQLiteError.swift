import CSQLite

/// A failure SQLite reported: its extended result code and its own words for it.
struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_IOERR_FSYNC`, not only `SQLITE_IOERR`): the store's
    /// error shows it, and the operator's search for it finds SQLite's page on it.
    let code: Int32
    let message: String

    /// The primary result code: the low byte of the extended one.
    var primaryCode: Int32 { code & Self.primaryCodeMask }

    private static let primaryCodeMask: Int32 = 0xFF

    static let ok = CSQLITE_OK
    static let error = CSQLITE_ERROR
    static let permission = CSQLITE_PERM
    static let busy = CSQLITE_BUSY
    static let locked = CSQLITE_LOCKED
    static let readOnly = CSQLITE_READONLY
    static let ioError = CSQLITE_IOERR
    static let ioErrorWrite = CSQLITE_IOERR_WRITE
    static let ioErrorFsync = CSQLITE_IOERR_FSYNC
    static let corrupt = CSQLITE_CORRUPT
    static let full = CSQLITE_FULL
    static let cannotOpen = CSQLITE_CANTOPEN
    static let constraintForeignKey = CSQLITE_CONSTRAINT_FOREIGNKEY
    static let misuse = CSQLITE_MISUSE
    static let notADatabase = CSQLITE_NOTADB

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The error `code` left on `connection` (`sqlite3_errmsg`), or SQLite's text for the code
    /// when the connection has no message of its own (a failed open leaves none).
    init(code: Int32, connection: OpaquePointer?) {
        self.code = code
        let own = connection.flatMap { csqlite_errmsg($0) }.map { String(cString: $0) }
        message = own ?? String(cString: csqlite_errstr(code))
    }

    var description: String { "SQLite error \(code): \(message)" }
}

/// libsqlite3.so.0 could not be loaded: `reason` is dlopen's message or the function it lacks.
struct SQLiteUnavailable: Error, Equatable, Sendable {
    let reason: String
}
