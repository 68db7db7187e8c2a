/// The database's tables, as migrations: a database made by an older version is brought up to
/// date on open, one made by a newer one is refused.
///
/// The migrations are recorded exactly as the migration library of earlier versions recorded
/// them, so files written before and after read the same to either: a table `grdb_migrations`
/// with one row per applied migration, its `identifier`, created before the first one, and each
/// migration run in its own transaction together with its row (`StoreMigrator`).
///
/// - `sessions`: one row per controller run (`beginSession`), with the state and time of its
///   last recorded step and, in a column named for each of the application's gauges, the
///   gauge's value then, so the next run can book a gauge left standing (the turnstile's
///   `credit`).
/// - `events`: one row per counted change (times in nanoseconds since 1970 UTC; `state` is the
///   state the event happened in, before the step). Retention deletes old rows.
/// - `daily_totals` and `totals`: sums kept in the same transaction as the rows; retention never
///   touches them.
/// - v2: `events.after`, the state the step ended in (NULL in rows written before), and
///   `deliveries`: for each consumer of the events (the MQTT publisher), the highest event id up
///   to which it has every one. The rows above it are its outbox: written in the same
///   transaction as the counts, so no counted event can be missing from it.
///
/// The gauge columns are the application's, not a migration's: a writer adds the ones its
/// declaration has and the file lacks (`addGaugeColumns`), at 0 for the runs before; a reader
/// takes a missing one as 0. A database made before the store was generic is the turnstile's
/// with its `credit` column, and opens unchanged.
enum StoreSchema {
    /// The migrations table (named by the library earlier versions used); its presence marks a
    /// database as ours.
    static let migrationsTable = "grdb_migrations"
    static let version1 = "v1: sessions, events, daily and overall totals"
    static let version2 = "v2: each event's state after, and the consumers' delivery marks (the outbox)"

    static let migrator = StoreMigrator(migrations: [
        StoreMigrator.Migration(
            identifier: version1,
            sql: """
                CREATE TABLE sessions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    started INTEGER NOT NULL,
                    lastEntry INTEGER,
                    ended INTEGER,
                    state TEXT NOT NULL
                );
                CREATE TABLE events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    time INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    amount INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    session INTEGER NOT NULL REFERENCES sessions(id)
                );
                CREATE INDEX events_by_time ON events(time);
                CREATE TABLE daily_totals (
                    day TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    amount INTEGER NOT NULL,
                    PRIMARY KEY (day, kind)
                ) WITHOUT ROWID;
                CREATE TABLE totals (
                    kind TEXT NOT NULL PRIMARY KEY,
                    amount INTEGER NOT NULL
                ) WITHOUT ROWID;
                """),
        StoreMigrator.Migration(
            identifier: version2,
            sql: """
                ALTER TABLE events ADD COLUMN after TEXT;
                CREATE TABLE deliveries (
                    consumer TEXT NOT NULL PRIMARY KEY,
                    delivered INTEGER NOT NULL
                ) WITHOUT ROWID;
                """),
    ])

    /// Adds a column to `sessions` for each of `gauges` it does not have yet.
    static func addGaugeColumns(_ gauges: [String], _ db: SQLiteDatabase) throws(SQLiteError) {
        let present = try gaugeColumns(gauges, db)
        for gauge in gauges where !present.contains(gauge) {
            try db.execute("ALTER TABLE sessions ADD COLUMN \(gauge.quotedDatabaseIdentifier) INTEGER NOT NULL DEFAULT 0")
        }
    }

    /// `sessions`' own columns; any other is a gauge's.
    static let sessionColumns = ["id", "started", "lastEntry", "ended", "state"]

    /// Every gauge column of `sessions`, the declaration's and any an earlier version had (a
    /// new session writes 0 into those too: the turnstile's first `credit` column has no
    /// default).
    static func allGaugeColumns(_ db: SQLiteDatabase) throws(SQLiteError) -> [String] {
        let own = Set(sessionColumns.map { $0.lowercased() })
        return try db.columns(in: "sessions").filter { !own.contains($0.lowercased()) }
    }

    /// Those of `gauges` that `sessions` has a column for (SQLite's names ignore case).
    static func gaugeColumns(_ gauges: [String], _ db: SQLiteDatabase) throws(SQLiteError) -> [String] {
        let columns = Set(try db.columns(in: "sessions").map { $0.lowercased() })
        return gauges.filter { columns.contains($0.lowercased()) }
    }
}
