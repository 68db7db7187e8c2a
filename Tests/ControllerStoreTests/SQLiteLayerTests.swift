import Testing
@testable import ControllerStore

/// The store's own SQLite layer (CSQLite, opened at run time): what it reads back is what was
/// written, its failures are SQLite's, and a missing library names the package to install.
@Suite("CountStore: SQLite opened at run time")
struct SQLiteLayerTests {
    @Test("libsqlite3.so.0 is loaded and is SQLite 3")
    func libraryLoads() throws {
        let scratch = try ScratchDirectory()
        let connection = try SQLiteConnection(path: scratch.file(), readOnly: false, busyTimeoutMilliseconds: StoreLimits.busyTimeoutMilliseconds)
        #expect(SQLiteConnection.libraryVersion.hasPrefix("3."))
        try connection.close()
    }

    @Test("every storage class reads back as written, and a value is never converted")
    func valuesRoundTrip() throws {
        let scratch = try ScratchDirectory()
        let connection = try SQLiteConnection(path: scratch.file(), readOnly: false, busyTimeoutMilliseconds: StoreLimits.busyTimeoutMilliseconds)
        let row = try connection.write { db in
            try db.execute("CREATE TABLE t (a, b, c, d, e)")
            try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, x'00ff10')", [Int64.min, "crédit \"1\"", 2.5, SQLiteValue.null])
            return try db.row("SELECT a, b, c, d, e FROM t")
        }
        #expect(row?["a"] == .integer(Int64.min))
        #expect(row?["B"] == .text("crédit \"1\""), "column names ignore case, as SQLite's do")
        #expect(row?["c"] == .real(2.5))
        #expect(row?["d"] == .null)
        #expect(row?["e"] == .blob(byteCount: 3))
        #expect(row?["c"].integer == nil && row?["a"].text == nil)
        try connection.close()
    }

    @Test("a failed write rolls back all of its transaction, and SQLite's code and words are kept")
    func failedWriteRollsBack() throws {
        let scratch = try ScratchDirectory()
        let connection = try SQLiteConnection(path: scratch.file(), readOnly: false, busyTimeoutMilliseconds: StoreLimits.busyTimeoutMilliseconds)
        try connection.write { db in try db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)") }
        let error = #expect(throws: SQLiteError.self) {
            try connection.write { db in
                try db.execute("INSERT INTO t VALUES ('a')")
                try db.execute("INSERT INTO t VALUES ('a')")
            }
        }
        #expect(error?.primaryCode == 19, "SQLITE_CONSTRAINT")
        #expect(error?.message.contains("UNIQUE") == true)
        #expect(try connection.read { db in try db.value("SELECT COUNT(*) FROM t") } == .integer(0))
        try connection.close()
        #expect(throws: SQLiteError(code: SQLiteError.misuse, message: "the database connection is closed")) {
            try connection.read { db in try db.value("SELECT 1") }
        }
    }

    @Test("a closed store's calls fail as SQLite's misuse, naming the file")
    func closedStore() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        try store.close()
        #expect(throws: StoreError.sqlite(path: scratch.file(), operation: "read", code: SQLiteError.misuse, message: "the database connection is closed")) {
            try store.totals()
        }
    }

    @Test("without libsqlite3.so.0 the store names the package that brings it")
    func unavailableNamesThePackage() {
        let error = StoreError.from(SQLiteUnavailable(reason: "libsqlite3.so.0: cannot open shared object file: No such file or directory"),
                                    path: "/var/lib/turnstiled/counts.sqlite", operation: "open")
        #expect(error == .sqliteUnavailable(path: "/var/lib/turnstiled/counts.sqlite",
                                           reason: "libsqlite3.so.0: cannot open shared object file: No such file or directory"))
        let message = "\(error)"
        #expect(message.contains("/var/lib/turnstiled/counts.sqlite") && message.contains("cannot open shared object file"))
        #expect(message.contains("`sudo apt install libsqlite3-0`"))
    }
}
