/// A consistent copy of a count database that a daemon may be writing at this moment: SQLite's
/// `VACUUM INTO` reads one snapshot of it, the write-ahead log's pages included (the main file
/// alone holds little while a daemon writes: its pages stay in the log until a checkpoint).
/// What the crash check cuts short to see a damaged copy refused; `package`, as nothing a user
/// runs needs it (`sqlite3 FILE ".backup COPY"` is the operator's way).
package enum StoreSnapshot {
    /// How long the copy waits for a writer's lock before it gives up.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Writes a copy of the database at `path` to `copy`, which must not exist yet.
    ///
    /// - Throws: `SQLiteUnavailable` when libsqlite3.so.0 cannot be loaded, else `SQLiteError`
    ///   (naming the file that is not a database, the copy that already exists, …).
    package static func copy(databaseAt path: String, to copy: String) throws {
        let connection = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        defer { try? connection.close() }
        try connection.writeWithoutTransaction { database in try database.execute("VACUUM INTO ?", [copy]) }
    }
}
