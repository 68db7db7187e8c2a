import ControllerFSM
import ControllerHost
import Foundation
import PropertyBased
import Testing
import Turnstile
@testable import ControllerStore
import ControllerTestSupport

/// Numbers from outside saturate or are refused by name, never trap, here for the numbers the
/// daemon reads from its own files: a count database
/// edited by hand (or by another program, or restored from half a backup) and the file of
/// counts a stopped run could not write. Generated members: Int64.min and .max, the numbers
/// either side of them, the store's own bound (``StoreLimits/maximumCount``) and one past it,
/// and random Int64 values, put into every integer column the daemon reads and does
/// arithmetic on (totals, daily totals, a session's gauge and last entry, an event's id, time,
/// amount and session, a delivery mark, the id sequence) and into every number of the
/// unwritten-counts file. Every read the daemon makes (opening for recording, the delivery
/// mark, the outbox and its depth, `stats` with its sums and balances) gives a value or a
/// `StoreError` naming what is wrong; a trap would kill this test process.
@Suite("Stored numbers at the extremes are read or refused by name, never trapped on")
struct HostileStoredNumbersTests {
    static let extremes: [Int64] = [
        .min, .min + 1, -1, 0, 1, .max - 1, .max, Int64(StoreLimits.maximumCount), Int64(StoreLimits.maximumCount) + 1,
    ]
    static let values = Gen.oneOf(Gen.element(of: extremes).map { $0! }, Gen.int64())

    static let edits = [
        "UPDATE totals SET amount = $N WHERE kind = 'coins'",
        "UPDATE daily_totals SET amount = $N WHERE kind = 'coins'",
        "UPDATE totals SET amount = $N WHERE kind = 'coins'; UPDATE daily_totals SET amount = $N WHERE kind = 'coins'",
        "UPDATE sessions SET credit = $N",
        "UPDATE sessions SET lastEntry = $N",
        "UPDATE events SET time = $N WHERE id = (SELECT MIN(id) FROM events)",
        "UPDATE events SET amount = $N WHERE id = (SELECT MIN(id) FROM events)",
        "UPDATE OR REPLACE events SET id = $N WHERE id = (SELECT MAX(id) FROM events)",
        "INSERT OR IGNORE INTO sessions (id, started, state) VALUES ($N, 0, 'locked'); UPDATE events SET session = $N",
        "INSERT OR REPLACE INTO deliveries (consumer, delivered) VALUES ('site', $N)",
        "UPDATE sqlite_sequence SET seq = $N WHERE name = 'events'",
    ]

    /// StoredValueTests' database (a finished session: 3 coins, 2 passages, credit 1), and a
    /// consumer's delivery mark.
    static func database(in scratch: ScratchDirectory) throws -> String {
        let path = try StoredValueTests().database(in: scratch)
        let store = try TurnstileStore.open(path: path)
        _ = try store.deliveryMark(of: "site")
        try store.close()
        return path
    }

    @Test("every integer column the daemon reads, at the extremes")
    func storedExtremes() async throws {
        await propertyCheck(count: PropertyCases.count(120), input: Self.values, Gen.element(of: Self.edits).map { $0! }) { value, edit in
            do {
                let scratch = try ScratchDirectory()
                let path = try Self.database(in: scratch)
                try runSQL(path, edit.replacingOccurrences(of: "$N", with: "\(value)"))
                Self.readAsTheDaemonDoes(path, what: "\(edit) with \(value)")
            } catch {
                Issue.record("setting up: \(error)")
            }
        }
    }

    /// Every read the daemon and `stats` make, and the arithmetic they do on what they read;
    /// a refusal must be a `StoreError` that names the file.
    static func readAsTheDaemonDoes(_ path: String, what: String) {
        func refused(_ error: any Error) {
            guard let error = error as? StoreError else { Issue.record("\(what): not a StoreError: \(error)"); return }
            #expect("\(error)".contains(path), "\(what): \(error)")
        }
        do {
            let store = try TurnstileStore.open(path: path)
            defer { try? store.close() }
            let mark = try store.deliveryMark(of: "site")
            // The site's depth, as SitePublisher computes it.
            #expect(max(0, mark.newest.saturatingSubtracting(mark.delivered)) >= 0)
            _ = try store.events(after: mark.delivered, limit: 10)
            _ = try store.eventCount(after: mark.delivered)
            let totals = try store.totals()
            _ = totals.invariantsHold
            _ = totals.lastEventTime
        } catch {
            refused(error)
        }
        do {
            let stats = try TurnstileStore.openForReading(path: path).stats()
            _ = stats.periodCounts
            _ = stats.totals.invariantsHold
            _ = stats.totals.lastEventTime
        } catch {
            refused(error)
        }
    }

    @Test("every number of the unwritten-counts file, at the extremes; the total saturates")
    func unwrittenExtremes() async {
        let lines = ["session N", "time N", "credit N", "coins N", "passages N"]
        await propertyCheck(count: PropertyCases.count(300), input: Self.values, Gen.element(of: lines).map { $0! }, Self.values) { value, line, other in
            var fields = ["session": "session 1", "time": "time 0", "state": "state locked", "credit": "credit 0", "coins": "coins 1"]
            let key = String(line.prefix { $0 != " " })
            fields[key] = line.replacingOccurrences(of: "N", with: "\(value)")
            let text = UnwrittenCounts<TurnstileApplication>.header + "\n" + fields.values.sorted().joined(separator: "\n") + "\n"
            do {
                let counts = try UnwrittenCounts<TurnstileApplication>.parse(text, path: "u")
                #expect(counts.total >= 0)
            } catch {
                guard case .invalidUnwrittenFile(_, let at, let reason)? = error as? StoreError else { Issue.record("\(error)"); return }
                #expect(at > 1 && reason.contains(key), "\(reason)")
            }
            // Counts each at the file's largest, over every kind: a sum that would wrap is held.
            let many = UnwrittenCounts<TurnstileApplication>(
                session: 1, time: other, state: .locked, gauges: [:],
                counts: Dictionary(uniqueKeysWithValues: CountStore<TurnstileApplication>.kinds.map { ($0, StoreLimits.maximumCount) }))
            let exact = Int128(StoreLimits.maximumCount) * Int128(CountStore<TurnstileApplication>.kinds.count)
            #expect(many.total == Int(clamping: exact))
        }
    }
}
