import ControllerFSM
import Synchronization
import ControllerHost

/// The durable record of every counted event of an application: an SQLite database in WAL mode
/// with `synchronous = FULL`, so a committed batch survives a crash or a power cut. Its kinds
/// are the application's counters, the states it counts entries or exits of, and the kinds its
/// gauges are voided into at a restart; its gauges are kept for each run (`StoreSchema`).
///
/// A daemon opens it with `open(path:retentionDays:)`, calls `beginSession` once per controller
/// run, and hands it the controller's ledger entries (`append`), usually through a
/// `StoreRecorder`. The counts it returns are committed: report those, and nothing reported is
/// ever lost. `openForReading(path:)` gives `stats` a view that never writes.
///
/// A damaged file is refused, never repaired, reset or overwritten: opening runs SQLite's
/// `quick_check` on a read-only connection before anything can write.
public final class CountStore<App: ControllerApplication>: Sendable {
    /// The database file.
    public let path: String
    /// Events older than this many days are deleted by `applyRetention(now:)`; `nil` keeps all.
    public let retentionDays: Int?

    let database: SQLiteConnection
    let declaration: StoreDeclaration<App>
    let session = Guarded(SessionState<App>())
    /// The writer's lock on the file (`StoreFile.lockForWriting`), until `close`.
    let lock: Guarded<Int32?>
    /// The file recorded into, checked before each write; `nil` for a reader.
    let identity: StoreFile.Identity?
    /// Counts a stopped daemon could not write (`UnwrittenCounts`), found beside the database
    /// when it was opened: the next session takes them in, a reader adds them to what it shows.
    let unwritten = Guarded<UnwrittenCounts<App>?>(nil)
    /// A SQLite result code every write transaction fails with (0: none): a test's full disk
    /// (`SQLITE_FULL`) or failing storage (`SQLITE_IOERR`), thrown inside the transaction so the
    /// store's own rollback and error path run. The recorder's thread runs no task, so this
    /// cannot be task-local like `StoreSyscalls.failing`.
    let injectedWriteFault = Atomic<Int32>(0)

    /// Where this database's unwritten counts are kept.
    public var unwrittenPath: String { UnwrittenCounts<App>.path(forDatabase: path) }

    /// The unwritten counts found beside the database when it was opened and not yet taken in.
    public var pendingUnwritten: UnwrittenCounts<App>? { unwritten.withLock { $0 } }

    /// Every kind the store counts, in the order `stats` shows them: the application's counters
    /// (`ignored` last), the state counts, then the kinds its gauges are voided into.
    public static var kinds: [String] { StoreDeclaration<App>().kinds }

    private init(
        path: String, retentionDays: Int?, database: SQLiteConnection, declaration: StoreDeclaration<App>, lock: Int32? = nil,
        identity: StoreFile.Identity? = nil
    ) {
        self.path = path
        self.retentionDays = retentionDays
        self.database = database
        self.declaration = declaration
        self.lock = Guarded(lock)
        self.identity = identity
    }

    deinit {
        releaseLock()
    }

    func releaseLock() {
        lock.withLock { descriptor in
            if let open = descriptor { StoreSyscalls.close(open) }
            descriptor = nil
        }
    }

    /// Opens the store at `path` for recording, creating it if there is no file (its directory
    /// must exist), and brings its schema up to date.
    ///
    /// Only one process at a time records into a file: it holds an exclusive lock on it until
    /// `close` (or its exit).
    ///
    /// - Throws: `StoreError` for a missing directory, a file or directory this user cannot
    ///   write, a file another process records into, a damaged file or one that is not a count database (the file is left as it was),
    ///   a database from a newer version, or a retention outside `StoreLimits`' bounds.
    public static func open(path: String, retentionDays: Int? = nil) throws(StoreError) -> CountStore {
        let declaration = StoreDeclaration<App>()
        declaration.requireValid()
        if let retentionDays, !(StoreLimits.minimumRetentionDays...StoreLimits.maximumRetentionDays).contains(retentionDays) {
            throw .invalidRetention(days: retentionDays)
        }
        try requireLibrary(path: path)
        let presence = try StoreFile.checkWritable(path, daemon: App.daemonName)
        let (descriptor, identity) = try StoreFile.lockForWriting(path, daemon: App.daemonName)
        let connection: SQLiteConnection
        do {
            if presence == .nonEmpty { try verify(path, declaration) }
            connection = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMilliseconds: StoreLimits.busyTimeoutMilliseconds)
            try connection.writeWithoutTransaction { db in
                // WAL: a `stats` reader never blocks the writer, nor the writer it. The mode is
                // kept in the file, so every later connection, an older turnstiled's too, has it.
                guard try db.value("PRAGMA journal_mode = WAL")?.text == "wal" else {
                    throw SQLiteError(code: SQLiteError.error, message: "could not activate WAL Mode at path: \(path)")
                }
                // FULL syncs the log on every commit: with NORMAL, the usual choice for WAL, a
                // power cut can take back the last commits, and those are counts the daemon
                // already reported.
                try db.execute("PRAGMA synchronous = FULL")
            }
            try StoreSchema.migrator.migrate(connection)
            try connection.write { db in try StoreSchema.addGaugeColumns(declaration.gauges, db) }
        } catch {
            // A file this open created and could not make a database is removed, so a failed
            // start leaves the path as it found it (a later reader would find an empty file).
            if presence == .absent, StoreSyscalls.status(atPath: path).map({ $0.st_size == 0 }) == true {
                _ = StoreSyscalls.remove(path)
            }
            StoreSyscalls.close(descriptor)
            throw StoreError.from(error, path: path, operation: "open")
        }
        let store = CountStore(
            path: path, retentionDays: retentionDays, database: connection, declaration: declaration, lock: descriptor, identity: identity)
        let totals = try store.totals()
        store.session.withLock { $0.totals = totals }
        let found = try UnwrittenCounts<App>.load(store.unwrittenPath)
        store.unwritten.withLock { $0 = found }
        return store
    }

    /// Opens the store at `path` for reading only (`totals`, `stats`): nothing is written, and a
    /// missing file is an error rather than a new database.
    public static func openForReading(path: String) throws(StoreError) -> CountStore {
        let declaration = StoreDeclaration<App>()
        declaration.requireValid()
        try requireLibrary(path: path)
        // Read as it is, an empty file would be an SQLite database with no tables: not ours.
        // It is nothing yet, and a reader says so.
        guard try StoreFile.checkReadable(path, daemon: App.daemonName) != .empty else {
            throw .empty(path: path, daemon: App.daemonName)
        }
        let connection = try verify(path, declaration, keepOpen: true)
        let store = CountStore(path: path, retentionDays: nil, database: connection, declaration: declaration)
        let found = try UnwrittenCounts<App>.load(store.unwrittenPath)
        store.unwritten.withLock { $0 = found }
        return store
    }

    /// Loads SQLite's library, which the store opens at run time: a machine without it is told
    /// which package to install (``StoreError/sqliteUnavailable(path:reason:)``) before anything
    /// is done at `path`. `open` and `openForReading` call it first; a command that will open
    /// a store later calls it at its start, so it fails before it touches anything else.
    public static func requireLibrary(path: String) throws(StoreError) {
        do {
            try SQLiteConnection.loadLibrary()
        } catch {
            throw .sqliteUnavailable(path: path, reason: error.reason)
        }
    }

    /// Closes the database: the write-ahead log is checkpointed into the file and emptied. Any
    /// later call fails with `StoreError.sqlite`.
    public func close() throws(StoreError) {
        do {
            // SQLite folds the log into the file on the last close only: a `stats` reader that
            // still has the file open would leave it behind. Fold it in here.
            if !database.isReadOnly {
                try database.writeWithoutTransaction { db in
                    try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                }
            }
            try database.close()
            releaseLock()
        } catch {
            throw StoreError.from(error, path: path, operation: "close")
        }
    }

    /// Checks the file on a read-only connection: SQLite's `quick_check` finds no damage, the
    /// schema is ours and not newer than ours, the totals and sessions hold valid values, and the
    /// values keep the relations the daemon relies on (``StoreRelations``). Returns the
    /// connection if asked to keep it.
    @discardableResult
    private static func verify(_ path: String, _ declaration: StoreDeclaration<App>, keepOpen: Bool = false) throws(StoreError) -> SQLiteConnection {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMilliseconds: StoreLimits.busyTimeoutMilliseconds)
        } catch {
            throw StoreError.from(error, path: path, operation: "open")
        }
        do {
            try connection.read { db throws in
                // quick_check reads every page and checks the b-trees; it skips only the check
                // that indexes match their tables, which a count store's one index can afford.
                let problems = try db.rows("PRAGMA quick_check").map { $0[0].text ?? "\($0[0])" }
                guard problems == ["ok"] else {
                    throw StoreError.corrupt(path: path, sqlite: problems.prefix(3).joined(separator: "; "))
                }
                let tables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").compactMap { $0[0].text }
                guard tables.contains(StoreSchema.migrationsTable) else {
                    // An empty database is a new store (a writer migrates it); any other is not ours.
                    if tables.isEmpty && !keepOpen { return }
                    throw StoreError.foreignDatabase(path: path, daemon: App.daemonName)
                }
                let migrator = StoreSchema.migrator
                let unknown = try migrator.appliedIdentifiers(db).subtracting(migrator.identifiers)
                guard unknown.isEmpty else { throw StoreError.newerSchema(path: path, unknownMigrations: unknown.sorted(), daemon: App.daemonName) }
                // The counts' tables are v1's; a file a daemon of that version wrote (not yet
                // migrated) is read as it is, and migrated when a writer opens it.
                let readable = try migrator.appliedIdentifiers(db).contains(StoreSchema.version1)
                if keepOpen && !readable { throw StoreError.foreignDatabase(path: path, daemon: App.daemonName) }
                // The values a writer starts from, checked before anything can write: a refused
                // file is left exactly as it was.
                if readable {
                    _ = try readTotals(db, path: path, declaration)
                    try StoreRelations.check(db, path: path, daemon: App.daemonName)
                }
            }
        } catch {
            try? connection.close()
            throw StoreError.from(error, path: path, operation: "check")
        }
        if !keepOpen { try? connection.close() }
        return connection
    }
}

/// The store's view of the session being recorded: where its clock starts and the last entry
/// it committed, from which the next entries' increases are counted.
struct SessionState<App: ControllerApplication> {
    var id: Int64?
    var monotonicOrigin: Int64 = 0
    var wallClockOrigin: Int64 = 0
    var counters = CounterValues(count: App.counterNames.count)
    var state = App.table.startState
    /// The state counts' bits after the last entry (``LedgerEntry/countedStates``).
    var countedStates = App.startStateCountBits
    var gauges = CounterValues(count: App.gauges.count)
    var totals = DurableTotals<App>.zero

    /// The wall-clock time of a controller instant, in nanoseconds since 1970 UTC.
    func wallClock(_ instant: MachineInstant) -> Int64 {
        wallClockOrigin &+ (instant.nanoseconds &- monotonicOrigin)
    }
}
