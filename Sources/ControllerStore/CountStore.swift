import ControllerFSM
import Foundation
import GRDB
import Synchronization
import ControllerHost
import Turnstile

/// The durable record of every counted event of a turnstile: an SQLite database in WAL mode
/// with `synchronous = FULL`, so a committed batch survives a crash or a power cut.
///
/// A daemon opens it with `open(path:retentionDays:)`, calls `beginSession` once per controller
/// run, and hands it the controller's ledger entries (`append`), usually through a
/// `StoreRecorder`. The counts it returns are committed: report those, and nothing reported is
/// ever lost. `openForReading(path:)` gives `turnstiled stats` a view that never writes.
///
/// A damaged file is refused, never repaired, reset or overwritten: opening runs SQLite's
/// `quick_check` on a read-only connection before anything can write.
public final class CountStore: Sendable {
    /// A retention shorter than a day would delete events while the day's report is still being
    /// read; a day is the least that makes sense.
    public static let minimumRetentionDays = 1
    /// A century: longer keeps the events as well as keeping them all, and a bound keeps the
    /// retention's cutoff (days in nanoseconds) far inside Int64.
    public static let maximumRetentionDays = 36_500
    /// The largest count, credit or total read from the database: a sixteenth of `Int64.max`,
    /// so that neither adding what a batch brings to a total nor the money balance's sum of
    /// five totals can overflow. A larger value read from the file was
    /// not written by turnstiled, and is refused (`StoreError.invalidValue`).
    public static let maximumCount = Int(Int64.max / 16)
    /// How long a connection waits for another to release its lock before failing: a `stats`
    /// reader and the daemon share the file, and a WAL checkpoint can hold it briefly.
    static let busyTimeout: TimeInterval = 5

    /// The database file.
    public let path: String
    /// Events older than this many days are deleted by `applyRetention(now:)`; `nil` keeps all.
    public let retentionDays: Int?

    let database: any DatabaseWriter
    let session = Guarded(SessionState())
    /// The writer's lock on the file (`StoreFile.lockForWriting`), until `close`.
    let lock: Guarded<Int32?>
    /// The file recorded into, checked before each write; `nil` for a reader.
    let identity: StoreFile.Identity?
    /// Counts a stopped daemon could not write (`UnwrittenCounts`), found beside the database
    /// when it was opened: the next session takes them in, a reader adds them to what it shows.
    let unwritten = Guarded<UnwrittenCounts?>(nil)
    /// A SQLite result code every write transaction fails with (0: none): a test's full disk
    /// (`SQLITE_FULL`) or failing storage (`SQLITE_IOERR`), thrown inside the transaction so the
    /// store's own rollback and error path run. The recorder's thread runs no task, so this
    /// cannot be task-local like `StoreSyscalls.failing`.
    let injectedWriteFault = Atomic<Int32>(0)

    /// Where this database's unwritten counts are kept.
    public var unwrittenPath: String { UnwrittenCounts.path(forDatabase: path) }

    /// The unwritten counts found beside the database when it was opened and not yet taken in.
    public var pendingUnwritten: UnwrittenCounts? { unwritten.withLock { $0 } }

    private init(path: String, retentionDays: Int?, database: any DatabaseWriter, lock: Int32? = nil, identity: StoreFile.Identity? = nil) {
        self.path = path
        self.retentionDays = retentionDays
        self.database = database
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
    ///   a database from a newer turnstiled, or a retention under `minimumRetentionDays`.
    public static func open(path: String, retentionDays: Int? = nil) throws(StoreError) -> CountStore {
        if let retentionDays, !(minimumRetentionDays...maximumRetentionDays).contains(retentionDays) {
            throw .invalidRetention(days: retentionDays)
        }
        let presence = try StoreFile.checkWritable(path)
        let (descriptor, identity) = try StoreFile.lockForWriting(path)
        let pool: DatabasePool
        do {
            if presence == .nonEmpty { try verify(path) }
            pool = try DatabasePool(path: path, configuration: baseConfiguration())
            // FULL syncs the log on every commit: with the NORMAL GRDB sets for WAL, a power cut
            // can take back the last commits, and those are counts the daemon already reported.
            // Set on the pool's one writer connection, after GRDB's own WAL set-up.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            try StoreSchema.migrator.migrate(pool)
        } catch {
            StoreSyscalls.close(descriptor)
            throw StoreError.from(error, path: path, operation: "open")
        }
        let store = CountStore(path: path, retentionDays: retentionDays, database: pool, lock: descriptor, identity: identity)
        let totals = try store.totals()
        store.session.withLock { $0.totals = totals }
        let found = try UnwrittenCounts.load(store.unwrittenPath)
        store.unwritten.withLock { $0 = found }
        return store
    }

    /// Opens the store at `path` for reading only (`totals`, `stats`): nothing is written, and a
    /// missing file is an error rather than a new database.
    public static func openForReading(path: String) throws(StoreError) -> CountStore {
        _ = try StoreFile.checkReadable(path)
        let queue = try verify(path, keepOpen: true)
        let store = CountStore(path: path, retentionDays: nil, database: queue)
        let found = try UnwrittenCounts.load(store.unwrittenPath)
        store.unwritten.withLock { $0 = found }
        return store
    }

    /// Closes the database: the write-ahead log is checkpointed into the file and emptied. Any
    /// later call fails with `StoreError.sqlite`.
    public func close() throws(StoreError) {
        do {
            // GRDB closes the writer before the pool's readers, so SQLite's own checkpoint on
            // the last close never runs: fold the log into the file here.
            if !(database is DatabaseQueue) {
                try database.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                }
            }
            try database.close()
            releaseLock()
        } catch {
            throw StoreError.from(error, path: path, operation: "close")
        }
    }

    /// Checks the file on a read-only connection: SQLite's `quick_check` finds no damage, the
    /// schema is ours and not newer than ours, and the totals and sessions hold valid values. Returns the connection if asked to keep it.
    @discardableResult
    private static func verify(_ path: String, keepOpen: Bool = false) throws(StoreError) -> DatabaseQueue {
        var configuration = baseConfiguration()
        configuration.readonly = true
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError.from(error, path: path, operation: "open")
        }
        do {
            try queue.read { db throws in
                // quick_check reads every page and checks the b-trees; it skips only the check
                // that indexes match their tables, which a count store's one index can afford.
                let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard problems == ["ok"] else {
                    throw StoreError.corrupt(path: path, sqlite: problems.prefix(3).joined(separator: "; "))
                }
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                guard tables.contains(StoreSchema.migrationsTable) else {
                    // An empty database is a new store (a writer migrates it); any other is not ours.
                    if tables.isEmpty && !keepOpen { return }
                    throw StoreError.foreignDatabase(path: path)
                }
                let migrator = StoreSchema.migrator
                let unknown = try migrator.appliedIdentifiers(db).subtracting(migrator.migrations)
                guard unknown.isEmpty else { throw StoreError.newerSchema(path: path, unknownMigrations: unknown.sorted()) }
                let complete = try migrator.hasCompletedMigrations(db)
                if keepOpen && !complete { throw StoreError.foreignDatabase(path: path) }
                // The values a writer starts from, checked before anything can write: a refused
                // file is left exactly as it was.
                if complete { _ = try readTotals(db, path: path) }
            }
        } catch {
            try? queue.close()
            throw StoreError.from(error, path: path, operation: "check")
        }
        if !keepOpen { try? queue.close() }
        return queue
    }

    private static func baseConfiguration() -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "turnstiled counts"
        return configuration
    }
}

/// The store's view of the session being recorded: where its clock starts and the last entry
/// it committed, from which the next entries' increases are counted.
struct SessionState {
    var id: Int64?
    var monotonicOrigin: Int64 = 0
    var wallClockOrigin: Int64 = 0
    var counters = TurnstileCounters()
    var state = TurnstileState.locked
    var credit = 0
    var totals = DurableTotals.zero

    /// The wall-clock time of a controller instant, in nanoseconds since 1970 UTC.
    func wallClock(_ instant: MachineInstant) -> Int64 {
        wallClockOrigin &+ (instant.nanoseconds &- monotonicOrigin)
    }
}
