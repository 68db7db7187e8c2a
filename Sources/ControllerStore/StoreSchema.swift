import GRDB

/// The database's tables, as GRDB migrations: a database made by an older turnstiled is brought
/// up to date on open, one made by a newer one is refused.
///
/// - `sessions`: one row per controller run (`beginSession`), with the state, credit and time of
///   its last recorded step, so the next run can book credit left standing.
/// - `events`: one row per counted change (times in nanoseconds since 1970 UTC; `state` is the
///   state the event happened in, before the step). Retention deletes old rows.
/// - `daily_totals` and `totals`: sums kept in the same transaction as the rows; retention never
///   touches them.
enum StoreSchema {
    /// The migrations table GRDB keeps; its presence marks a database as ours.
    static let migrationsTable = "grdb_migrations"
    static let version1 = "v1: sessions, events, daily and overall totals"

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(version1) { db in
            try db.execute(sql: """
                CREATE TABLE sessions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    started INTEGER NOT NULL,
                    lastEntry INTEGER,
                    ended INTEGER,
                    state TEXT NOT NULL,
                    credit INTEGER NOT NULL
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
                """)
        }
        return migrator
    }
}
