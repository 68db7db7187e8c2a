import ControllerFSM
import ControllerHost

/// The relations between stored values that the daemon relies on, checked when a file is
/// opened, after each value alone was (``StoredRow``): a value can be well-formed and still
/// wrong against the others (a hand edit, another program, a restored half of a backup). Each
/// is refused with the same ``StoreError/invalidValue`` as a bad value — exit 4, naming the
/// table, the row, the column and the value — and the file is left as it was.
///
/// | relation                                               | why the daemon relies on it            |
/// |--------------------------------------------------------|----------------------------------------|
/// | deliveries.delivered ≤ the newest event id ever given  | a mark past it publishes nothing, ever |
/// | totals.amount = Σ daily_totals.amount, per kind         | both are booked in one transaction     |
/// | totals.amount ≥ Σ events.amount, per kind               | retention removes events, never totals |
/// | events.session names a session                          | each event is its run's                |
enum StoreRelations {
    static func check(_ db: SQLiteDatabase, path: String, daemon: String) throws {
        func refuse(_ table: String, _ row: String, _ column: String, _ value: String, _ expected: String) -> StoreError {
            .invalidValue(path: path, table: table, row: row, column: column, value: value, expected: expected, daemon: daemon)
        }
        let tables = Set(try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0].text })

        // Each value a relation sums is checked alone first, so that a bad value is refused as
        // itself (its table, row and column), not as the sum it spoils.
        let badAmount = "typeof(amount) != 'integer' OR amount < 0 OR amount > \(StoreLimits.maximumCount)"
        for row in try db.rows("SELECT day, kind, amount FROM daily_totals WHERE \(badAmount) OR typeof(kind) != 'text' LIMIT 1") {
            let stored = StoredRow(row, table: "daily_totals", path: path, daemon: daemon, keys: ["day", "kind"])
            _ = try stored.text("kind")
            _ = try stored.count("amount")
        }
        for row in try db.rows("""
            SELECT id, kind, amount, session FROM events
            WHERE \(badAmount) OR typeof(kind) != 'text' OR typeof(session) != 'integer' LIMIT 1
            """) {
            let stored = StoredRow(row, table: "events", path: path, daemon: daemon)
            _ = try stored.text("kind")
            _ = try stored.count("amount")
            _ = try stored.identifier("session")
        }

        // AUTOINCREMENT keeps the largest id ever given in sqlite_sequence, so the bound holds
        // after retention deleted the newest events' predecessors (or all of them).
        let maxID = try db.value("SELECT COALESCE(MAX(id), 0) FROM events")?.integer ?? 0
        let sequence = tables.contains("sqlite_sequence")
            ? try db.value("SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = 'events'")?.integer ?? 0 : 0
        let newest = max(maxID, sequence)
        if tables.contains("deliveries") {
            let marks = try db.rows(
                "SELECT consumer, delivered FROM deliveries WHERE typeof(delivered) != 'integer' OR delivered < 0 OR delivered > ? ORDER BY consumer LIMIT 1",
                [newest])
            for row in marks {
                let stored = StoredRow(row, table: "deliveries", path: path, daemon: daemon, key: "consumer")
                let mark = try stored.identifier("delivered")
                throw refuse("deliveries", stored.name, "delivered", "\(mark)",
                             "a sequence no later than the newest event's (\(newest)): past it, no event would ever be delivered")
            }
        }

        let daily = try db.rows("""
            SELECT t.kind, t.amount, COALESCE((SELECT SUM(d.amount) FROM daily_totals d WHERE d.kind = t.kind), 0)
            FROM totals t ORDER BY t.kind
            """)
        for row in daily where row[1].integer != row[2].integer {
            throw refuse("totals", "kind \"\((row[0].text ?? "?").bounded)\"", "amount", "\(row[1].integer ?? 0)",
                         "the sum of that kind's daily_totals (\(row[2].integer ?? 0)): both are booked in one transaction")
        }
        let orphans = try db.rows("""
            SELECT d.kind, SUM(d.amount) FROM daily_totals d WHERE d.kind NOT IN (SELECT kind FROM totals)
            GROUP BY d.kind HAVING SUM(d.amount) != 0 ORDER BY d.kind LIMIT 1
            """)
        for row in orphans {
            throw refuse("daily_totals", "kind \"\((row[0].text ?? "?").bounded)\"", "amount", "\(row[1].integer ?? 0)",
                         "a kind the totals table has: daily totals and totals are booked in one transaction")
        }

        let ledger = try db.rows("""
            SELECT e.kind, SUM(e.amount), COALESCE((SELECT t.amount FROM totals t WHERE t.kind = e.kind), 0)
            FROM events e GROUP BY e.kind HAVING SUM(e.amount) > COALESCE((SELECT t.amount FROM totals t WHERE t.kind = e.kind), 0)
            ORDER BY e.kind LIMIT 1
            """)
        for row in ledger {
            throw refuse("totals", "kind \"\((row[0].text ?? "?").bounded)\"", "amount", "\(row[2].integer ?? 0)",
                         "at least the events of that kind still kept (\(row[1].integer ?? 0)): retention removes events, never totals")
        }

        for row in try db.rows("SELECT id, session FROM events WHERE session NOT IN (SELECT id FROM sessions) ORDER BY id LIMIT 1") {
            throw refuse("events", "id \(row[0].integer ?? 0)", "session", "\(row[1].integer ?? 0)", "the id of a row of sessions")
        }
    }
}
