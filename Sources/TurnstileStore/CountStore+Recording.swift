import ControllerFSM
import Foundation
import GRDB
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
        return try session.withLock { (current: inout SessionState) throws(StoreError) -> DurableTotals in
            var totals = current.totals
            let id: Int64
            do {
                id = try database.write { db in
                    let previous = try Row.fetchOne(db, sql: "SELECT state, credit FROM sessions ORDER BY id DESC LIMIT 1")
                    try db.execute(
                        sql: "INSERT INTO sessions (started, state, credit) VALUES (?, ?, 0)",
                        arguments: [wallClock, TurnstileState.locked.name])
                    let id = db.lastInsertedRowID
                    if let previous, let credit = previous["credit"] as Int?, credit > 0 {
                        let state: String = previous["state"]
                        var batch = EventBatch()
                        batch.add(time: wallClock, kind: CountKind.creditsVoidedByRestart, amount: credit, state: state)
                        try batch.write(db, session: id)
                        batch.apply(to: &totals)
                    }
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
    public func append(_ entries: [LedgerEntry]) throws(StoreError) -> DurableTotals {
        try session.withLock { (current: inout SessionState) throws(StoreError) -> DurableTotals in
            guard let id = current.id else { throw .noSession(path: path) }
            guard let last = entries.last else { return current.totals }
            var batch = EventBatch()
            var previous = (counters: current.counters, state: current.state)
            for entry in entries {
                let time = current.wallClock(entry.time)
                let state = previous.state.name
                for ((name, before), (_, after)) in zip(previous.counters.all, entry.counters.all) where after != before {
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
                previous = (entry.counters, entry.state)
            }
            let lastTime = current.wallClock(last.time)
            do {
                try database.write { db in
                    try batch.write(db, session: id)
                    try db.execute(
                        sql: "UPDATE sessions SET state = ?, credit = ?, lastEntry = ? WHERE id = ?",
                        arguments: [last.state.name, last.credit, lastTime, id])
                }
            } catch {
                throw StoreError.from(error, path: path, operation: "write")
            }
            batch.apply(to: &current.totals)
            current.totals.credit = last.credit
            current.totals.state = last.state
            current.totals.lastEventUnixNanoseconds = lastTime
            current.counters = last.counters
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

    static func unixNanoseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1e9).rounded())
    }
}

/// The rows of one transaction and their sums per kind and per day, so the totals are updated
/// once per kind and not once per row.
struct EventBatch {
    struct Event {
        var time: Int64
        var kind: String
        var amount: Int
        var state: String
    }

    var events: [Event] = []
    var byKind: [String: Int] = [:]
    var byDay: [UTCDay: [String: Int]] = [:]

    mutating func add(time: Int64, kind: String, amount: Int, state: String) {
        events.append(Event(time: time, kind: kind, amount: amount, state: state))
        byKind[kind, default: 0] += amount
        byDay[UTCDay(unixNanoseconds: time), default: [:]][kind, default: 0] += amount
    }

    func write(_ db: Database, session: Int64) throws {
        let insert = try db.cachedStatement(sql: "INSERT INTO events (time, kind, amount, state, session) VALUES (?, ?, ?, ?, ?)")
        for event in events {
            try insert.execute(arguments: [event.time, event.kind, event.amount, event.state, session])
        }
        let total = try db.cachedStatement(sql: """
            INSERT INTO totals (kind, amount) VALUES (?, ?)
            ON CONFLICT (kind) DO UPDATE SET amount = amount + excluded.amount
            """)
        for (kind, amount) in byKind {
            try total.execute(arguments: [kind, amount])
        }
        let daily = try db.cachedStatement(sql: """
            INSERT INTO daily_totals (day, kind, amount) VALUES (?, ?, ?)
            ON CONFLICT (day, kind) DO UPDATE SET amount = amount + excluded.amount
            """)
        for (day, kinds) in byDay {
            for (kind, amount) in kinds {
                try daily.execute(arguments: [day.description, kind, amount])
            }
        }
    }

    func apply(to totals: inout DurableTotals) {
        for (kind, amount) in byKind {
            totals.counters[kind, default: 0] += amount
        }
    }
}
