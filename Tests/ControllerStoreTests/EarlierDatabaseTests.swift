import ControllerFSM
import Foundation
import Testing
import ControllerHost
import Turnstile
@testable import ControllerStore

/// A count database made by turnstiled before the store took its kinds from the declaration
/// (`Fixtures/counts-v1.sqlite`: two runs of `turnstiled run --stop-at-end` on boards/sim.toml
/// playing `Fixtures/counts-v1-run1.txt` and `-run2.txt`) opens with all it holds, and the next
/// run goes on from it. The fixture itself is never written: each test works on a copy.
@Suite("CountStore: a database made by an earlier turnstiled")
struct EarlierDatabaseTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/counts-v1.sqlite").path

    /// What the two scenarios counted (each of their lines says what it does): every kind at
    /// least once, the first run's credit of 1 voided by the second, which stopped in
    /// `unlocked` with a credit of 2.
    static let counted = [
        "coins": 10, "passages": 4, "forcedPushes": 1, "expiredCredits": 1, "faults": 1, "coinsOutOfService": 2,
        "repairs": 1, "freePassages": 1, "ignored": 1, "emergencyOn": 1, "emergencyOff": 1, "creditsVoidedByRestart": 1,
    ]

    func copy(into scratch: ScratchDirectory) throws -> String {
        let path = scratch.file()
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
        return path
    }

    /// Every kind's total from the rows of `events`, as the file holds them.
    func eventSums(_ store: TurnstileStore) throws -> [String: Int] {
        try store.database.read { db in
            Dictionary(uniqueKeysWithValues: try db.rows("SELECT kind, SUM(amount) AS sum FROM events GROUP BY kind")
                .map { ($0.string("kind")!, $0.int("sum")!) })
        }
    }

    @Test("stats reads every total, the state and the credit standing, and writes nothing")
    func readerFindsEverything() throws {
        let scratch = try ScratchDirectory()
        let path = try copy(into: scratch)
        let before = try contents(path)
        let reader = try TurnstileStore.openForReading(path: path)
        let stats = try reader.stats()
        try reader.close()
        #expect(stats.totals.counters == Self.counted)
        #expect(Set(TurnstileStore.kinds) == Set(Self.counted.keys), "the fixture counts every kind the turnstile has")
        #expect(stats.totals.state == .unlocked)
        #expect(stats.totals.credit == 2)
        #expect(stats.totals.moneyInvariantHolds)
        #expect(stats.totals.lastEventUnixNanoseconds != nil)
        #expect(stats.sessions == 2)
        #expect(stats.periodCounts == Self.counted, "the daily totals add up to the totals")
        #expect(try contents(path) == before, "a reader never writes")
    }

    @Test("a writer opens it with the same totals, and the next run books the standing credit under creditsVoidedByRestart")
    func nextRunGoesOn() throws {
        let scratch = try ScratchDirectory()
        let path = try copy(into: scratch)
        var store = try TurnstileStore.open(path: path)
        let opened = try store.totals()
        #expect(opened.counters == Self.counted)
        #expect(opened.state == .unlocked && opened.credit == 2)
        #expect(try eventSums(store) == Self.counted.filter { $0.value > 0 }, "the rows add up to the totals")

        let begun = try store.beginTestSession(at: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(begun["creditsVoidedByRestart"] == 1 + 2)
        #expect(begun.credit == 0 && begun.state == .locked)
        #expect(begun.moneyInvariantHolds)
        let voided = try store.database.read { db in
            try db.row("SELECT state, amount, session FROM events WHERE kind = 'creditsVoidedByRestart' ORDER BY id DESC LIMIT 1")
        }
        #expect(voided?["state"] == .text("unlocked"))
        #expect(voided?["amount"] == .integer(2))
        #expect(voided?["session"] == .integer(3))

        var tape = LedgerTape()
        tape.coin()
        tape.push()
        tape.emergency(true)
        tape.emergency(false)
        tape.coin()
        let recorded = try store.append(tape.take())
        #expect(recorded["coins"] == 12 && recorded["passages"] == 5 && recorded["emergencyOn"] == 2 && recorded["emergencyOff"] == 2)
        #expect(recorded.credit == 1 && recorded.state == .unlocked)
        #expect(recorded.moneyInvariantHolds)
        try store.close()
        store = try TurnstileStore.open(path: path)
        #expect(try store.totals() == recorded)
        #expect(try eventSums(store) == recorded.counters.filter { $0.value > 0 })
        try store.close()
    }
}
