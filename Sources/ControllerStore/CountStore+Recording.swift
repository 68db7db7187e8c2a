import ControllerFSM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControllerHost

extension CountStore {
    /// Starts recording a new controller run, whose counters start at zero, in the machine's
    /// initial state with every gauge at 0. `monotonicOrigin` and `wallClockOrigin` are the same
    /// moment on the controller's clock and on the wall clock: entries' times are mapped through
    /// them.
    ///
    /// A gauge the previous session last recorded above zero (the daemon was killed, lost power
    /// or stopped while the turnstile's credit stood) is booked under its
    /// ``GaugeDeclaration/voidedByRestart`` kind in the same transaction, so the application's
    /// durable invariants hold over the database's whole life (`DurableTotals.invariantsHold`).
    @discardableResult
    public func beginSession(monotonicOrigin: MachineInstant, wallClockOrigin: Date) throws(StoreError) -> DurableTotals<App> {
        let wallClock = Self.unixNanoseconds(wallClockOrigin)
        let found = pendingUnwritten
        let declaration = declaration
        let totals = try session.withLock { (current: inout SessionState<App>) throws(StoreError) -> DurableTotals<App> in
            var totals = current.totals
            guard try StoreFile.identity(of: path) == identity else { throw .fileReplaced(path: path, daemon: App.daemonName) }
            let id: Int64
            do {
                id = try database.write { db in
                    try checkInjectedFault()
                    // Counts the last run could not write go in first, so its session's gauges
                    // below are the ones it really ended with.
                    if let found { try takeIn(found, db) }
                    let gauges = declaration.gauges.map(\.quotedDatabaseIdentifier)
                    let previous = try db.row("SELECT \((["id", "state"] + gauges).joined(separator: ", ")) FROM sessions ORDER BY id DESC LIMIT 1")
                    let columns = try StoreSchema.allGaugeColumns(db).map(\.quotedDatabaseIdentifier)
                    try db.execute(
                        "INSERT INTO sessions (\((["started", "state"] + columns).joined(separator: ", "))) "
                            + "VALUES (\(Array(repeating: "?", count: 2 + columns.count).joined(separator: ", ")))",
                        [wallClock, declaration.stateNames[App.table.startState.rawValue]] + columns.map { _ in 0 as any SQLiteArgument })
                    let id = db.lastInsertedRowID
                    if let previous {
                        let row = StoredRow(previous, table: "sessions", path: path, daemon: App.daemonName)
                        var batch = EventBatch()
                        for (gauge, voided) in zip(declaration.gauges, declaration.voidedKinds) {
                            guard let voided else { continue }
                            let value = try row.count(gauge)
                            guard value > 0 else { continue }
                            let state: App.State = try row.state("state", names: declaration.stateNames)
                            let name = declaration.stateNames[state.rawValue]
                            batch.add(time: wallClock, kind: voided, amount: value, state: name, after: name)
                        }
                        _ = try batch.write(db, session: id, path: path, daemon: App.daemonName)
                        if !batch.events.isEmpty {
                            totals.lastEventUnixNanoseconds = max(totals.lastEventUnixNanoseconds ?? wallClock, wallClock)
                        }
                    }
                    totals.counters.merge(try EventBatch.readCounters(db, path: path, daemon: App.daemonName)) { $1 }
                    return id
                }
            } catch {
                throw StoreError.from(error, path: path, operation: "begin a session in")
            }
            current = SessionState(id: id, monotonicOrigin: monotonicOrigin.nanoseconds, wallClockOrigin: wallClock)
            totals.gauges = current.totals.gauges
            totals.state = current.state
            totals.activeStates = DurableTotals<App>.startStates
            current.totals = totals
            return totals
        }
        if found != nil {
            // Taken in: a file left behind would be taken in again (`takeIn` skips it then, by
            // its time, but a reader would still add it).
            _ = StoreSyscalls.remove(unwrittenPath)
            unwritten.withLock { $0 = nil }
        }
        return totals
    }

    /// Writes a stopped run's unwritten counts into its session, unless the session already
    /// has them (its last entry is as late: a daemon that crashed after taking them in and before
    /// removing the file).
    private func takeIn(_ counts: UnwrittenCounts<App>, _ db: SQLiteDatabase) throws {
        guard let row = try db.row("SELECT id, lastEntry FROM sessions WHERE id = ?", [counts.session]) else {
            throw StoreError.unwrittenFileForeign(path: unwrittenPath, database: path, session: counts.session)
        }
        if let last = try StoredRow(row, table: "sessions", path: path, daemon: App.daemonName).optionalInteger("lastEntry"), last >= counts.time { return }
        let state = declaration.stateNames[counts.state.rawValue]
        var batch = EventBatch()
        for (name, amount) in counts.counts.sorted(by: { $0.key < $1.key }) {
            batch.add(time: counts.time, kind: name, amount: amount, state: state, after: state)
        }
        _ = try batch.write(db, session: counts.session, path: path, daemon: App.daemonName)
        try updateSession(counts.session, state: state, gauges: declaration.gauges.map { counts.gauges[$0] ?? 0 }, lastEntry: counts.time, db)
    }

    /// Records where the session stood after its last step.
    private func updateSession(_ id: Int64, state: String, gauges: [Int], lastEntry: Int64, _ db: SQLiteDatabase) throws {
        let assignments = (["state = ?"] + declaration.gauges.map { "\($0.quotedDatabaseIdentifier) = ?" } + ["lastEntry = ?"])
        try db.cached("UPDATE sessions SET \(assignments.joined(separator: ", ")) WHERE id = ?")
            .execute([state] + gauges.map { $0 as any SQLiteArgument } + [lastEntry, id])
    }

    /// What `entries` would add to the database: the counts a stop could not write.
    ///
    /// - Returns: `nil` if the entries hold no change the database lacks.
    public func unwrittenCounts(of entries: [LedgerEntry<App>]) throws(StoreError) -> UnwrittenCounts<App>? {
        try session.withLock { (current: inout SessionState<App>) throws(StoreError) -> UnwrittenCounts<App>? in
            guard let id = current.id else { throw .noSession(path: path) }
            guard let last = entries.last else { return nil }
            var counts: [String: Int] = [:]
            var previous = (counters: current.counters, countedStates: current.countedStates)
            for entry in entries {
                try declaration.forEachCount(from: previous.counters, previous.countedStates, to: entry, path: path) { kind, amount in
                    counts[kind, default: 0] += amount
                }
                previous = (entry.counters, entry.countedStates)
            }
            if counts.isEmpty && last.state == current.state && last.gauges == current.gauges { return nil }
            return UnwrittenCounts(
                session: id, time: current.wallClock(last.time), state: last.state, gauges: declaration.gaugeValues(last.gauges),
                counts: counts)
        }
    }

    /// Keeps `counts` in `unwrittenPath` (replacing the file atomically, synced) for the next
    /// start to take in.
    public func keep(_ counts: UnwrittenCounts<App>) throws(StoreError) {
        guard StoreSyscalls.replaceDurably(unwrittenPath, with: Array(counts.encoded.utf8), directory: StoreFile.directoryOf(path)) else {
            throw .system(path: unwrittenPath, operation: "keep the unwritten counts in", errno: SystemErrno.current)
        }
    }

    /// Throws the fault a test injected (`injectedWriteFault`), inside a write transaction.
    func checkInjectedFault() throws {
        let code = injectedWriteFault.load(ordering: .relaxed)
        if code != 0 { throw SQLiteError(code: code, message: "injected by a test") }
    }

    /// Records the controller's ledger entries, oldest first, in one transaction: a row for
    /// every counter that went up since the entry before (its increase, in the state the step
    /// started from), a row for each state count the step made (the turnstile's emergency
    /// entered or left), and the totals.
    ///
    /// Entries carry cumulative counters, so entries missing between two (a ring that
    /// overflowed) lose only the detail of when each count happened, never a count.
    ///
    /// - Returns: the totals as committed. When it returns, the batch is on disk.
    @discardableResult
    public func append(_ entries: [LedgerEntry<App>]) throws(StoreError) -> DurableTotals<App> {
        try session.withLock { (current: inout SessionState<App>) throws(StoreError) -> DurableTotals<App> in
            guard let id = current.id else { throw .noSession(path: path) }
            guard let last = entries.last else { return current.totals }
            var batch = EventBatch()
            var previous = (counters: current.counters, state: current.state, countedStates: current.countedStates)
            for entry in entries {
                let time = current.wallClock(entry.time)
                let state = declaration.stateNames[previous.state.rawValue]
                let after = declaration.stateNames[entry.state.rawValue]
                try declaration.forEachCount(from: previous.counters, previous.countedStates, to: entry, path: path) { kind, amount in
                    batch.add(time: time, kind: kind, amount: amount, state: state, after: after)
                }
                previous = (entry.counters, entry.state, entry.countedStates)
            }
            let lastTime = current.wallClock(last.time)
            let gauges = (0..<declaration.gauges.count).map { last.gauges[$0] }
            guard try StoreFile.identity(of: path) == identity else { throw .fileReplaced(path: path, daemon: App.daemonName) }
            let counters: [String: Int]
            do {
                counters = try database.write { db in
                    try checkInjectedFault()
                    let counters = try batch.write(db, session: id, path: path, daemon: App.daemonName)
                    try updateSession(id, state: declaration.stateNames[last.state.rawValue], gauges: gauges, lastEntry: lastTime, db)
                    return counters
                }
            } catch {
                throw StoreError.from(error, path: path, operation: "write")
            }
            current.totals.counters.merge(counters) { $1 }
            current.totals.gauges = declaration.gaugeValues(last.gauges)
            current.totals.state = last.state
            current.totals.activeStates = last.activeStates.indices.compactMap(App.State.init(rawValue:))
            // The last *counted* event: a batch of steps that counted nothing (the start, a
            // level change) leaves it where it was, so a store that never counted has none.
            if let counted = batch.events.lazy.map(\.time).max() {
                current.totals.lastEventUnixNanoseconds = max(current.totals.lastEventUnixNanoseconds ?? counted, counted)
            }
            current.counters = last.counters
            current.state = last.state
            current.countedStates = last.countedStates
            current.gauges = last.gauges
            return current.totals
        }
    }

    /// Marks the current session as ended cleanly at `time`; its last gauges are still booked as
    /// voided when the next session begins, since the next controller starts without them.
    public func endSession(at time: Date) throws(StoreError) {
        let ended = Self.unixNanoseconds(time)
        try session.withLock { (current: inout SessionState<App>) throws(StoreError) in
            guard let id = current.id else { return }
            do {
                try database.write { db in
                    try db.execute("UPDATE sessions SET ended = ? WHERE id = ?", [ended, id])
                }
            } catch {
                throw StoreError.from(error, path: path, operation: "end the session in")
            }
            current.id = nil
        }
    }

    static func unixNanoseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1e9).rounded())
    }
}

/// The rows of one transaction. SQLite sums them into the daily and overall totals in the same
/// transaction (one aggregate statement each, not one update per row: the recorder must keep up
/// with a busy controller).
struct EventBatch {
    struct Event {
        var time: Int64
        var kind: String
        var amount: Int
        var state: String
        /// The state the step ended in.
        var after: String
    }

    var events: [Event] = []

    mutating func add(time: Int64, kind: String, amount: Int, state: String, after: String) {
        events.append(Event(time: time, kind: kind, amount: amount, state: state, after: after))
    }

    /// The UTC day of `events.time` in SQL, floored like `UTCDay` for times before 1970.
    static let daySQL = "date(time / 1000000000 - (time < 0 AND time % 1000000000 != 0), 'unixepoch')"

    /// Writes the rows and adds them to the totals; returns every kind's total after that.
    func write(_ db: SQLiteDatabase, session: Int64, path: String, daemon: String) throws -> [String: Int] {
        guard !events.isEmpty else { return try Self.readCounters(db, path: path, daemon: daemon) }
        let before = try db.value("SELECT COALESCE(MAX(id), 0) FROM events")?.integer ?? 0
        let insert = try db.cached("INSERT INTO events (time, kind, amount, state, after, session) VALUES (?, ?, ?, ?, ?, ?)")
        for event in events {
            try insert.execute([event.time, event.kind, event.amount, event.state, event.after, session])
        }
        // `WHERE true` lets SQLite parse the upsert after a SELECT (https://sqlite.org/lang_upsert.html).
        try db.cached("""
            INSERT INTO totals (kind, amount)
            SELECT kind, SUM(amount) FROM events WHERE id > ? GROUP BY kind
            ON CONFLICT (kind) DO UPDATE SET amount = amount + excluded.amount
            """).execute([before])
        try db.cached("""
            INSERT INTO daily_totals (day, kind, amount)
            SELECT \(Self.daySQL), kind, SUM(amount) FROM events WHERE id > ? GROUP BY 1, 2
            ON CONFLICT (day, kind) DO UPDATE SET amount = amount + excluded.amount
            """).execute([before])
        return try Self.readCounters(db, path: path, daemon: daemon)
    }

    /// Every kind's total, each checked (`StoredRow`, naming `daemon` when one is refused).
    static func readCounters(_ db: SQLiteDatabase, path: String, daemon: String) throws -> [String: Int] {
        var counters: [String: Int] = [:]
        for row in try db.rows("SELECT kind, amount FROM totals") {
            let stored = StoredRow(row, table: "totals", path: path, daemon: daemon, key: "kind")
            counters[try stored.text("kind")] = try stored.count("amount")
        }
        return counters
    }
}
