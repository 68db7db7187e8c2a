import CSQLite
import ControllerFSM

/// One SQLite connection to a database file, which every thread of the process shares: a lock
/// makes each `read` or `write` whole (the recorder's thread writes while the daemon's tasks
/// begin and end sessions and read totals), and SQLite is opened fully serialized besides.
/// The only code that touches CSQLite, with `SQLiteDatabase` and `SQLiteStatement`.
final class SQLiteConnection: Sendable {
    let path: String
    /// Opened `SQLITE_OPEN_READONLY`: nothing can be written through it.
    let isReadOnly: Bool
    private let database: Guarded<SQLiteDatabase?>

    /// Opens `path` (creating it unless `readOnly`) with SQLite's extended result codes,
    /// `busyTimeoutMilliseconds` of waiting on another connection's lock, and foreign keys
    /// enforced, then reads its schema once so a file that is not a database fails here.
    ///
    /// - Throws: `SQLiteUnavailable` when libsqlite3.so.0 cannot be loaded, else `SQLiteError`.
    init(path: String, readOnly: Bool, busyTimeoutMilliseconds: Int32) throws {
        try Self.loadLibrary()
        let access = readOnly ? CSQLITE_OPEN_READONLY : CSQLITE_OPEN_READWRITE | CSQLITE_OPEN_CREATE
        var handle: OpaquePointer?
        let code = csqlite_open_v2(path, &handle, access | CSQLITE_OPEN_FULLMUTEX, nil)
        guard code == SQLiteError.ok, let handle else {
            let error = SQLiteError(code: code, connection: handle)
            if let handle { _ = csqlite_close_v2(handle) }
            throw error
        }
        let database = SQLiteDatabase(handle: handle)
        _ = csqlite_extended_result_codes(handle, 1)
        _ = csqlite_busy_timeout(handle, busyTimeoutMilliseconds)
        try database.execute("PRAGMA foreign_keys = ON")
        // Opening reads nothing: a picture or a text file opens as an empty database until the
        // first read. Reading the schema now refuses it at the open, as the store reports it.
        _ = try database.rows("SELECT * FROM sqlite_master LIMIT 1")
        self.path = path
        self.isReadOnly = readOnly
        self.database = Guarded(database)
    }

    /// Loads libsqlite3.so.0 (once per process; later calls return what the first found).
    /// The store calls it before it touches the database's path, so a machine without SQLite
    /// is told so and left as it was: no file created that no database was ever written to.
    static func loadLibrary() throws(SQLiteUnavailable) {
        var reason = [CChar](repeating: 0, count: Int(CSQLITE_REASON_SIZE))
        guard csqlite_load(&reason, reason.count) == 0 else {
            throw SQLiteUnavailable(reason: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// SQLite's version, e.g. `3.40.1` (the library must have been loaded: a connection opened).
    static var libraryVersion: String { String(cString: csqlite_libversion()) }

    /// Runs `body` in a deferred transaction, which gives it one snapshot of the file even
    /// while another process writes.
    func read<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        try withDatabase { database in try database.inTransaction("BEGIN DEFERRED TRANSACTION", body) }
    }

    /// Runs `body` in a transaction that takes the write lock at once (a deferred one could
    /// fail half-way when a reader's snapshot blocks the upgrade); committed when it returns,
    /// rolled back when it throws.
    func write<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        try withDatabase { database in try database.inTransaction("BEGIN IMMEDIATE TRANSACTION", body) }
    }

    /// Runs `body` outside any transaction (pragmas that cannot run inside one, checkpoints).
    func writeWithoutTransaction<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        try withDatabase(body)
    }

    /// Closes the connection; any later call fails with `SQLITE_MISUSE`.
    func close() throws(SQLiteError) {
        let code = database.withLock { database -> Int32 in
            defer { database = nil }
            return database?.close() ?? SQLiteError.ok
        }
        guard code == SQLiteError.ok else { throw SQLiteError(code: code, connection: nil) }
    }

    private func withDatabase<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        try database.withLock { (database: inout SQLiteDatabase?) throws -> T in
            guard let database else { throw SQLiteError(code: SQLiteError.misuse, message: "the database connection is closed") }
            return try body(database)
        }
    }
}
