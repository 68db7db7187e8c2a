#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControllerHost

/// One day's counts.
public struct DayCounts: Sendable, Equatable {
    public var day: UTCDay
    /// Every kind in `CountStore.kinds`, zero when nothing of it happened that day.
    public var counts: [String: Int]

    public subscript(kind: String) -> Int { counts[kind] ?? 0 }
}

/// What `stats` prints: the totals, and the counts of each day that had any.
public struct StoreStats<App: ControllerApplication>: Sendable, Equatable {
    /// Everything since the database was created (retention never removes from these).
    public var totals: DurableTotals<App>
    /// The first day asked for, or `nil` for all days.
    public var since: UTCDay?
    /// Each day from `since` with a count, oldest first.
    public var days: [DayCounts]
    /// Controller runs the database has recorded.
    public var sessions: Int
    /// Counts a stopped daemon could not write into the database, kept beside it and included
    /// in `totals` (not in `days`); the next run writes them in.
    public var unwritten: UnwrittenCounts<App>?

    /// The sum of `days` for each kind: the counts since `since`.
    public var periodCounts: [String: Int] {
        var sums = StoreDeclaration<App>().zeroCounts
        for day in days { sums.merge(day.counts, uniquingKeysWith: +) }
        return sums
    }
}

extension CountStore {
    /// The committed totals, read from the file: every kind's count, and the state, gauges and
    /// time of the latest session's last recorded step.
    public func totals() throws(StoreError) -> DurableTotals<App> {
        do {
            return try database.read { db in try Self.readTotals(db, path: path, declaration) }
        } catch {
            throw StoreError.from(error, path: path, operation: "read")
        }
    }

    /// The totals, and the counts per day from `since` (all days if `nil`), each value checked.
    /// Counts a stopped daemon could not write (`pendingUnwritten`) are added to the totals and
    /// named in `StoreStats.unwritten`: the next run writes them into the file.
    public func stats(since: UTCDay? = nil) throws(StoreError) -> StoreStats<App> {
        let unwritten = pendingUnwritten
        let zero = declaration.zeroCounts
        do {
            return try database.read { db in
                var totals = try Self.readTotals(db, path: path, declaration)
                let rows = try db.rows("SELECT day, kind, amount FROM daily_totals ORDER BY day")
                var days: [DayCounts] = []
                var sums: [String: Int] = [:]
                for row in rows {
                    let stored = StoredRow(row, table: "daily_totals", path: path, daemon: App.daemonName, keys: ["day", "kind"])
                    let text = try stored.text("day")
                    guard let day = UTCDay(parsing: text) else {
                        throw StoreError.invalidValue(
                            path: path, table: "daily_totals", row: stored.name, column: "day",
                            value: StoredRow.describe(row["day"]), expected: "a date as YYYY-MM-DD", daemon: App.daemonName)
                    }
                    let kind = try stored.text("kind")
                    let amount = try stored.count("amount")
                    // Every day's count of a kind adds up to its total: a sum past the largest
                    // count was not written by the store (and would overflow the period's sum).
                    let (sum, overflow) = sums[kind, default: 0].addingReportingOverflow(amount)
                    guard !overflow, sum <= StoreLimits.maximumCount else {
                        throw StoreError.invalidValue(
                            path: path, table: "daily_totals", row: stored.name, column: "amount", value: "\(amount)",
                            expected: "days whose counts of \(kind) add up to at most \(StoreLimits.maximumCount)", daemon: App.daemonName)
                    }
                    sums[kind] = sum
                    if let since, day < since { continue }
                    if days.last?.day != day {
                        days.append(DayCounts(day: day, counts: zero))
                    }
                    days[days.count - 1].counts[kind] = amount
                }
                let sessions = try db.row("SELECT COUNT(*) AS count FROM sessions")
                    .map { try StoredRow($0, table: "sessions", path: path, daemon: App.daemonName, keys: []).count("count") } ?? 0
                if let unwritten, try !Self.hasTakenIn(unwritten, db, path: path) {
                    for (kind, amount) in unwritten.counts { totals.counters[kind, default: 0] += amount }
                    totals.state = unwritten.state
                    totals.gauges.merge(unwritten.gauges) { $1 }
                    totals.lastEventUnixNanoseconds = unwritten.time
                    return StoreStats(totals: totals, since: since, days: days, sessions: sessions, unwritten: unwritten)
                }
                return StoreStats(totals: totals, since: since, days: days, sessions: sessions)
            }
        } catch {
            throw StoreError.from(error, path: path, operation: "read")
        }
    }

    /// Whether the database already holds `counts` (a run took them in and was stopped before it
    /// removed the file): their session's last entry is at least as late.
    static func hasTakenIn(_ counts: UnwrittenCounts<App>, _ db: SQLiteDatabase, path: String) throws -> Bool {
        guard let row = try db.row("SELECT id, lastEntry FROM sessions WHERE id = ?", [counts.session]) else {
            throw StoreError.unwrittenFileForeign(path: UnwrittenCounts<App>.path(forDatabase: path), database: path, session: counts.session)
        }
        guard let last = try StoredRow(row, table: "sessions", path: path, daemon: App.daemonName).optionalInteger("lastEntry") else { return false }
        return last >= counts.time
    }

    /// Deletes the events older than `retentionDays` before `now` (nothing without a retention).
    /// Daily and overall totals are kept: counts never leave the totals, only their detail goes.
    ///
    /// - Returns: how many event rows were deleted.
    @discardableResult
    public func applyRetention(now: Date) throws(StoreError) -> Int {
        guard let retentionDays else { return 0 }
        // `open` bounds the retention (`maximumRetentionDays`) and the clock is near now, so
        // neither the product nor the difference comes near Int64's range.
        let cutoff = Self.unixNanoseconds(now) - Int64(retentionDays) * UTCDay.nanosecondsPerDay
        do {
            return try database.write { db in
                try db.execute("DELETE FROM events WHERE time < ?", [cutoff])
                return db.changesCount
            }
        } catch {
            throw StoreError.from(error, path: path, operation: "apply retention to")
        }
    }

    static func readTotals(_ db: SQLiteDatabase, path: String, _ declaration: StoreDeclaration<App>) throws -> DurableTotals<App> {
        let counters = try EventBatch.readCounters(db, path: path, daemon: App.daemonName)
        let gauges = try StoreSchema.gaugeColumns(declaration.gauges, db)
        var latest: (state: App.State, gauges: [String: Int])?
        var lastEntry: Int64?
        // Every session row is checked, not only the latest: the next run books the latest's
        // gauges, and any row's lastEntry may be the latest step. One row per run: few.
        let columns = (["id", "state", "lastEntry"] + gauges.map(\.quotedDatabaseIdentifier)).joined(separator: ", ")
        for row in try db.rows("SELECT \(columns) FROM sessions ORDER BY id") {
            let stored = StoredRow(row, table: "sessions", path: path, daemon: App.daemonName)
            let state: App.State = try stored.state("state", names: declaration.stateNames)
            var values: [String: Int] = [:]
            for gauge in gauges { values[gauge] = try stored.count(gauge) }
            latest = (state, values)
            if let entry = try stored.optionalInteger("lastEntry") { lastEntry = max(lastEntry ?? entry, entry) }
        }
        // The last counted event's time: the newest event kept; when retention removed them all,
        // the last step of a session, if anything was ever counted; never, if nothing was.
        let newestEvent = try db.value("SELECT MAX(time) FROM events")?.integer
        let counted = counters.values.contains { $0 > 0 }
        return DurableTotals(
            counters: counters, gauges: latest?.gauges ?? [:], state: latest?.state ?? App.table.startState,
            lastEventUnixNanoseconds: newestEvent ?? (counted ? lastEntry : nil))
    }
}
