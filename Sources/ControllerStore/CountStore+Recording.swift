import ControllerFSM
import Foundation
import GRDB
import ControllerHost
import Turnstile

extension CountStore {
    /// Starts recording a new controller run, whose counters start at zero, in state `locked`
    /// with no credit. `monotonicOrigin` and `wallClockOrigin` are the same moment on the
    /// controller's clock and on the wall clock: entries' times are mapped through them.
    ///
    /// If the previous session's last recorded credit was above zero (the daemon was killed, lost
    /// power or stopped while a customer's credit stood), that credit is booked as
    /// `CountKind.creditsVoidedByRestart` in the same transaction, so the money invariant holds
    /// over the database's whole life (`DurableTotals.moneyInvariantHolds`).
    @discardableResult
    public func beginSession(monotonicOrigin: MachineInstant, wallClockOrigin: Date) throws(StoreError) -> DurableTotals {
        let wallClock = Self.unixNanoseconds(wallClockOrigin)
        let found = pendingUnwritten
        let totals = try session.withLock { (current: inout SessionState) throws(StoreError) -> DurableTotals in
            var totals = current.totals
            guard try StoreFile.identity(of: path) == identity else { throw .fileReplaced(path: path) }
            let id: Int64
            do {
                id = try database.write { db in
                    try checkInjectedFault()
                    // Counts the last run could not write go in first, so its session's credit
                    // below is the one it really ended with.
                    if let found { try takeIn(found, db) }
                    let previous = try Row.fetchOne(db, sql: "SELECT id, state, credit FROM sessions ORDER BY id DESC LIMIT 1")
                    try db.execute(
                        sql: "INSERT INTO sessions (started, state, credit) VALUES (?, ?, 0)",
                        arguments: [wallClock, TurnstileState.locked.name])
                    let id = db.lastInsertedRowID
                    if let previous {
                        let row = StoredRow(previous, table: "sessions", path: path)
                        let credit = try row.count("credit")
                        if credit > 0 {
                            let state = try row.state("state")
                            var batch = EventBatch()
                            batch.add(time: wallClock, kind: CountKind.creditsVoidedByRestart, amount: credit, state: state.name)
                            _ = try batch.write(db, session: id, path: path)
                        }
                    }
                    totals.counters.merge(try EventBatch.readCounters(db, path: path)) { $1 }
                    return id
                }
            } catch {
                throw StoreError.from(error, path: path, operation: "begin a session in")
            }
            totals.credit = 0
            totals.state = .locked
            current = SessionState(id: id, monotonicOrigin: monotonicOrigin.nanoseconds, wallClockOrigin: wallClock, totals: totals)
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
    private func takeIn(_ counts: UnwrittenCounts, _ db: Database) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT id, lastEntry FROM sessions WHERE id = ?", arguments: [counts.session]) else {
            throw StoreError.unwrittenFileForeign(path: unwrittenPath, database: path, session: counts.session)
        }
        if let last = try StoredRow(row, table: "sessions", path: path).optionalInteger("lastEntry"), last >= counts.time { return }
        var batch = EventBatch()
        for (name, amount) in counts.counts.sorted(by: { $0.key < $1.key }) {
            batch.add(time: counts.time, kind: name, amount: amount, state: counts.state.name)
        }
        _ = try batch.write(db, session: counts.session, path: path)
        try db.execute(
            sql: "UPDATE sessions SET state = ?, credit = ?, lastEntry = ? WHERE id = ?",
            arguments: [counts.state.name, counts.credit, counts.time, counts.session])
    }

    /// What `entries` would add to the database: the counts a stop could not write.
    ///
    /// - Returns: `nil` if the entries hold no change the database lacks.
    public func unwrittenCounts(of entries: [LedgerEntry<TurnstileApplication>]) throws(StoreError) -> UnwrittenCounts? {
        try session.withLock { (current: inout SessionState) throws(StoreError) -> UnwrittenCounts? in
            guard let id = current.id else { throw .noSession(path: path) }
            guard let last = entries.last else { return nil }
            var counts: [String: Int] = [:]
            for (name, field) in TurnstileCounters.fields {
                let before = current.counters[keyPath: field], after = last.turnstileCounters[keyPath: field]
                guard after >= before else { throw .counterWentBackwards(path: path, counter: name, from: before, to: after) }
                if after > before { counts[name] = after - before }
            }
            if counts.isEmpty && last.state == current.state && last.credit == current.credit { return nil }
            return UnwrittenCounts(session: id, time: current.wallClock(last.time), state: last.state, credit: last.credit, counts: counts)
        }
    }

    /// Keeps `counts` in `unwrittenPath` (replacing the file atomically, synced) for the next
    /// start to take in.
    public func keep(_ counts: UnwrittenCounts) throws(StoreError) {
        guard StoreSyscalls.replaceDurably(unwrittenPath, with: Array(counts.encoded.utf8), directory: StoreFile.directoryOf(path)) else {
            throw .system(path: unwrittenPath, operation: "keep the unwritten counts in", errno: SystemErrno.current)
        }
    }

    /// Throws the fault a test injected (`injectedWriteFault`), inside a write transaction.
    func checkInjectedFault() throws {
        let code = injectedWriteFault.load(ordering: .relaxed)
        if code != 0 { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "injected by a test") }
    }

    /// Records the controller's ledger entries, oldest first, in one transaction: a row for
    /// every counter that went up since the entry before (its increase, in the state the step
    /// started from), a row when the state entered or left `emergency`, and the totals.
    ///
    /// Entries carry cumulative counters, so entries missing between two (a ring that
    /// overflowed) lose only the detail of when each count happened, never a count.
    ///
    /// - Returns: the totals as committed. When it returns, the batch is on disk.
    @discardableResult
    public func append(_ entries: [LedgerEntry<TurnstileApplication>]) throws(StoreError) -> DurableTotals {
        try session.withLock { (current: inout SessionState) throws(StoreError) -> DurableTotals in
            guard let id = current.id else { throw .noSession(path: path) }
            guard let last = entries.last else { return current.totals }
            var batch = EventBatch()
            var previous = (counters: current.counters, state: current.state)
            for entry in entries {
                let time = current.wallClock(entry.time)
                let state = Self.stateNames[previous.state.rawValue]
                for (name, field) in TurnstileCounters.fields {
                    let before = previous.counters[keyPath: field], after = entry.turnstileCounters[keyPath: field]
                    if after == before { continue }
                    guard after > before else {
                        throw .counterWentBackwards(path: path, counter: name, from: before, to: after)
                    }
                    batch.add(time: time, kind: name, amount: after - before, state: state)
                }
                if entry.state != previous.state {
                    if entry.state == .emergency {
                        batch.add(time: time, kind: CountKind.emergencyOn, amount: 1, state: state)
                    } else if previous.state == .emergency {
                        batch.add(time: time, kind: CountKind.emergencyOff, amount: 1, state: state)
                    }
                }
                previous = (entry.turnstileCounters, entry.state)
            }
            let lastTime = current.wallClock(last.time)
            guard try StoreFile.identity(of: path) == identity else { throw .fileReplaced(path: path) }
            let counters: [String: Int]
            do {
                counters = try database.write { db in
                    try checkInjectedFault()
                    let counters = try batch.write(db, session: id, path: path)
                    try db.execute(
                        sql: "UPDATE sessions SET state = ?, credit = ?, lastEntry = ? WHERE id = ?",
                        arguments: [last.state.name, last.credit, lastTime, id])
                    return counters
                }
            } catch {
                throw StoreError.from(error, path: path, operation: "write")
            }
            current.totals.counters.merge(counters) { $1 }
            current.totals.credit = last.credit
            current.totals.state = last.state
            current.totals.lastEventUnixNanoseconds = lastTime
            current.counters = last.turnstileCounters
            current.state = last.state
            current.credit = last.credit
            return current.totals
        }
    }

    /// Marks the current session as ended cleanly at `time`; its last credit is still booked as
    /// voided when the next session begins, since the next controller starts without it.
    public func endSession(at time: Date) throws(StoreError) {
        let ended = Self.unixNanoseconds(time)
        try session.withLock { (current: inout SessionState) throws(StoreError) in
            guard let id = current.id else { return }
            do {
                try database.write { db in
                    try db.execute(sql: "UPDATE sessions SET ended = ? WHERE id = ?", arguments: [ended, id])
                }
            } catch {
                throw StoreError.from(error, path: path, operation: "end the session in")
            }
            current.id = nil
        }
    }

    /// The states' names by raw value: `name` reflects on the enum each time it is asked.
    static let stateNames = TurnstileState.allCases.map(\.name)

    static func unixNanoseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1e9).rounded())
    }
}

/// The rows of one transaction. SQLite sums them into the daily and overall totals in the same
/// transaction (one aggregate statement each, not one update per row: the recorder must keep up
/// with a busy turnstile).
struct EventBatch {
    struct Event {
        var time: Int64
        var kind: String
        var amount: Int
        var state: String
    }

    var events: [Event] = []

    mutating func add(time: Int64, kind: String, amount: Int, state: String) {
        events.append(Event(time: time, kind: kind, amount: amount, state: state))
    }

    /// The UTC day of `events.time` in SQL, floored like `UTCDay` for times before 1970.
    static let daySQL = "date(time / 1000000000 - (time < 0 AND time % 1000000000 != 0), 'unixepoch')"

    /// Writes the rows and adds them to the totals; returns every kind's total after that.
    func write(_ db: Database, session: Int64, path: String) throws -> [String: Int] {
        guard !events.isEmpty else { return try Self.readCounters(db, path: path) }
        let before = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM events") ?? 0
        let insert = try db.cachedStatement(sql: "INSERT INTO events (time, kind, amount, state, session) VALUES (?, ?, ?, ?, ?)")
        for event in events {
            try insert.execute(arguments: [event.time, event.kind, event.amount, event.state, session])
        }
        // `WHERE true` lets SQLite parse the upsert after a SELECT (https://sqlite.org/lang_upsert.html).
        try db.cachedStatement(sql: """
            INSERT INTO totals (kind, amount)
            SELECT kind, SUM(amount) FROM events WHERE id > ? GROUP BY kind
            ON CONFLICT (kind) DO UPDATE SET amount = amount + excluded.amount
            """).execute(arguments: [before])
        try db.cachedStatement(sql: """
            INSERT INTO daily_totals (day, kind, amount)
            SELECT \(Self.daySQL), kind, SUM(amount) FROM events WHERE id > ? GROUP BY 1, 2
            ON CONFLICT (day, kind) DO UPDATE SET amount = amount + excluded.amount
            """).execute(arguments: [before])
        return try Self.readCounters(db, path: path)
    }

    /// Every kind's total, each checked (`StoredRow`).
    static func readCounters(_ db: Database, path: String) throws -> [String: Int] {
        var counters: [String: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT kind, amount FROM totals") {
            let stored = StoredRow(row, table: "totals", path: path, key: "kind")
            counters[try stored.text("kind")] = try stored.count("amount")
        }
        return counters
    }
}

extension TurnstileCounters {
    /// Every counter's name (as in `TurnstileCounters.names`) and key path, so the store compares
    /// two entries without building `all` for each (a test checks the two lists agree).
    static let fields: [(name: String, value: KeyPath<TurnstileCounters, Int> & Sendable)] = [
        ("coins", \.coins), ("passages", \.passages), ("forcedPushes", \.forcedPushes),
        ("expiredCredits", \.expiredCredits), ("faults", \.faults), ("coinsOutOfService", \.coinsOutOfService),
        ("repairs", \.repairs), ("freePassages", \.freePassages), ("ignored", \.ignored),
    ]
}
