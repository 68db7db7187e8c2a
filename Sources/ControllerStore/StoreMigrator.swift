/// The store's migrations, applied and recorded as the migrator of the library earlier versions
/// used did (the one that named `grdb_migrations`): the same table and rows, and the same steps,
/// so a file either version made is one the other opens (an older turnstiled reads
/// `grdb_migrations` through that library, and refuses a file whose migrations it lacks).
struct StoreMigrator: Sendable {
    struct Migration: Sendable {
        /// The row `grdb_migrations` gets: never change one, add a migration instead.
        let identifier: String
        let sql: String
    }

    /// In the order they are applied.
    let migrations: [Migration]

    var identifiers: [String] { migrations.map(\.identifier) }

    /// Every identifier the file records as applied, including those of migrations this version
    /// does not know (a newer daemon's).
    func appliedIdentifiers(_ db: SQLiteDatabase) throws(SQLiteError) -> Set<String> {
        guard try db.tableExists(StoreSchema.migrationsTable) else { return [] }
        return Set(try db.rows("SELECT identifier FROM \(StoreSchema.migrationsTable)").compactMap { $0[0].text })
    }

    /// Applies the migrations the file lacks, each in its own immediate transaction with its
    /// row, foreign keys checked over the whole file before it commits (the earlier migrator's
    /// deferred checks: off while the migration runs, since a migration may rebuild a table others
    /// refer to).
    func migrate(_ connection: SQLiteConnection) throws {
        try connection.writeWithoutTransaction { db in
            try db.execute("CREATE TABLE IF NOT EXISTS \(StoreSchema.migrationsTable) (identifier TEXT NOT NULL PRIMARY KEY)")
            let applied = try appliedIdentifiers(db)
            for migration in migrations where !applied.contains(migration.identifier) {
                try db.execute("PRAGMA foreign_keys = OFF")
                do {
                    try db.inTransaction("BEGIN IMMEDIATE TRANSACTION") { db in
                        try db.execute(migration.sql)
                        try db.execute("INSERT INTO \(StoreSchema.migrationsTable) (identifier) VALUES (?)", [migration.identifier])
                        if let violation = try db.row("PRAGMA foreign_key_check") {
                            throw SQLiteError(
                                code: SQLiteError.constraintForeignKey,
                                message: "migration \(migration.identifier) leaves a broken reference in table \(violation["table"].text ?? "?")")
                        }
                    }
                } catch {
                    try? db.execute("PRAGMA foreign_keys = ON")
                    throw error
                }
                try db.execute("PRAGMA foreign_keys = ON")
            }
        }
    }
}
