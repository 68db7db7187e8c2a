import ControllerFSM
import Foundation
import Testing
import ControllerHost
import Turnstile
@testable import ControllerStore

@Suite("CountStore: retention and stats")
struct RetentionAndStatsTests {
    static let day = 86_400.0
    /// 2024-03-01 00:00 UTC.
    static let firstDay = Date(timeIntervalSince1970: 1_709_251_200)

    /// One session with `coinsPerDay[i]` coins (each with a passage) on the i-th day from
    /// `firstDay`, at noon.
    func fill(_ store: TurnstileStore, coinsPerDay: [Int]) throws {
        try store.beginSession(monotonicOrigin: .zero, wallClockOrigin: Self.firstDay)
        var tape = LedgerTape()
        for (index, coins) in coinsPerDay.enumerated() {
            tape.time = MachineInstant(nanoseconds: Int64((Double(index) * Self.day + Self.day / 2) * 1e9))
            for _ in 0..<coins {
                tape.coin()
                tape.push()
            }
        }
        try store.append(tape.take())
    }

    @Test("UTC days print and parse as YYYY-MM-DD, and only real dates parse")
    func days() {
        #expect(UTCDay(unixNanoseconds: 1_709_251_200_000_000_000).description == "2024-03-01")
        #expect(UTCDay(unixNanoseconds: 1_709_251_199_999_999_999).description == "2024-02-29")
        #expect(UTCDay(unixNanoseconds: -1).description == "1969-12-31")
        #expect(UTCDay(parsing: "2024-02-29")?.startUnixNanoseconds == 1_709_164_800_000_000_000)
        for bad in ["2023-02-29", "2024-13-01", "2024-00-10", "2024-1-01", "24-01-01", "2024-01-32", "yesterday", "", "2024-01-01x", "+024-01-01"] {
            #expect(UTCDay(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("retention deletes old events and never a count from the totals or the days")
    func retentionKeepsTotals() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file(), retentionDays: 2)
        try fill(store, coinsPerDay: [3, 4, 5, 6])
        let before = try store.stats()
        // An hour after noon of the fourth day: the first two days' noons are more than two
        // days old, the third day's is not.
        let deleted = try store.applyRetention(now: Self.firstDay.addingTimeInterval(3.5 * Self.day + 3600))
        #expect(deleted == 2 * (3 + 4))
        let left = try store.database.read { db in try db.int("SELECT COUNT(*) FROM events") }
        #expect(left == 2 * (5 + 6))
        let after = try store.stats()
        #expect(after == before)
        #expect(after.totals["coins"] == 18)
        #expect(after.days.map { $0["passages"] } == [3, 4, 5, 6])

        let keepAll = try TurnstileStore.open(path: scratch.file("all.sqlite"))
        try fill(keepAll, coinsPerDay: [3])
        #expect(try keepAll.applyRetention(now: Self.firstDay.addingTimeInterval(1000 * Self.day)) == 0)
    }

    @Test("stats since a day give that day on, and the totals of all time")
    func statsSince() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        try fill(store, coinsPerDay: [1, 0, 2, 7])
        let all = try store.stats()
        #expect(all.days.map(\.day.description) == ["2024-03-01", "2024-03-03", "2024-03-04"])
        #expect(all.sessions == 1)
        let since = try store.stats(since: UTCDay(parsing: "2024-03-02"))
        #expect(since.days.map(\.day.description) == ["2024-03-03", "2024-03-04"])
        #expect(since.days.map { $0["coins"] } == [2, 7])
        #expect(since.periodCounts["coins"] == 9)
        #expect(since.totals["coins"] == 10)
        #expect(try store.stats(since: UTCDay(parsing: "2024-04-01")).days.isEmpty)
    }
}
