import Foundation
import GRDB
import Turnstile

/// One day's counts.
public struct DayCounts: Sendable, Equatable {
    public var day: UTCDay
    /// Every kind in `CountKind.all`, zero when nothing of it happened that day.
    public var counts: [String: Int]

    public subscript(kind: String) -> Int { counts[kind] ?? 0 }
}

/// What `turnstiled stats` prints: the totals, and the counts of each day that had any.
public struct StoreStats: Sendable, Equatable {
    /// Everything since the database was created (retention never removes from these).
    public var totals: DurableTotals
    /// The first day asked for, or `nil` for all days.
    public var since: UTCDay?
    /// Each day from `since` with a count, oldest first.
    public var days: [DayCounts]
    /// Controller runs the database has recorded.
    public var sessions: Int

    /// The sum of `days` for each kind: the counts since `since`.
    public var periodCounts: [String: Int] {
        var sums = Dictionary(uniqueKeysWithValues: CountKind.all.map { ($0, 0) })
        for day in days { sums.merge(day.counts, uniquingKeysWith: +) }
        return sums
    }
}

extension CountStore {
    /// The committed totals, read from the file: every kind's count, and the state, credit and
    /// time of the latest session's last recorded step.
    public func totals() throws(StoreError) -> DurableTotals {
        do {
            return try database.read { db in try Self.readTotals(db) }
        } catch {
            throw StoreError.from(error, path: path, operation: "read")
        }
    }

    /// The totals, and the counts per day from `since` (all days if `nil`).
    public func stats(since: UTCDay? = nil) throws(StoreError) -> StoreStats {
        do {
            return try database.read { db in
                let totals = try Self.readTotals(db)
                let rows = try Row.fetchAll(
                    db, sql: "SELECT day, kind, amount FROM daily_totals WHERE day >= ? ORDER BY day",
                    arguments: [since?.description ?? ""])
                var days: [DayCounts] = []
                for row in rows {
                    let text: String = row["day"]
                    guard let day = UTCDay(parsing: text) else { continue }
                    if days.last?.day != day {
                        days.append(DayCounts(day: day, counts: Dictionary(uniqueKeysWithValues: CountKind.all.map { ($0, 0) })))
                    }
                    days[days.count - 1].counts[row["kind"], default: 0] += row["amount"] as Int
                }
                let sessions = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sessions") ?? 0
                return StoreStats(totals: totals, since: since, days: days, sessions: sessions)
            }
        } catch {
            throw StoreError.from(error, path: path, operation: "read")
        }
    }

    /// Deletes the events older than `retentionDays` before `now` (nothing without a retention).
    /// Daily and overall totals are kept: counts never leave the totals, only their detail goes.
    ///
    /// - Returns: how many event rows were deleted.
    @discardableResult
    public func applyRetention(now: Date) throws(StoreError) -> Int {
        guard let retentionDays else { return 0 }
        let cutoff = Self.unixNanoseconds(now) - Int64(retentionDays) * UTCDay.nanosecondsPerDay
        do {
            return try database.write { db in
                try db.execute(sql: "DELETE FROM events WHERE time < ?", arguments: [cutoff])
                return db.changesCount
            }
        } catch {
            throw StoreError.from(error, path: path, operation: "apply retention to")
        }
    }

    static func readTotals(_ db: Database) throws -> DurableTotals {
        let counters = try EventBatch.readCounters(db)
        let latest = try Row.fetchOne(db, sql: "SELECT state, credit FROM sessions ORDER BY id DESC LIMIT 1")
        let stateName: String? = latest?["state"]
        let lastEntry = try Int64.fetchOne(db, sql: "SELECT MAX(lastEntry) FROM sessions")
        return DurableTotals(
            counters: counters,
            credit: latest?["credit"] ?? 0,
            state: TurnstileState.allCases.first { $0.name == stateName } ?? .locked,
            lastEventUnixNanoseconds: lastEntry)
    }
}
