import ControllerChecks
import Testing

@Suite struct CountSnapshotTests {
    @Test func readsStatusRepliesCountersNumbersAndPhase() throws {
        let snapshot = try CountSnapshot.status(json: #"{"ok":true,"status":{"phase":"running","credit":2,"counters":{"coins":5,"passages":3},"state":"unlocked","inputs":{"coin":false}}}"#)
        #expect(snapshot.counts == ["coins": 5, "passages": 3])
        #expect(snapshot.numbers == ["credit": 2])
        #expect(snapshot.phase == "running")
    }

    @Test func readsStatsTotalsAndBalances() throws {
        let snapshot = try CountSnapshot.stats(json: #"{"sessions":4,"credit":1,"moneyBalances":true,"totals":{"coins":9},"database":"/x"}"#)
        #expect(snapshot.counts == ["coins": 9])
        #expect(snapshot.numbers == ["sessions": 4, "credit": 1])
        #expect(snapshot.flags == ["moneyBalances": true])
    }

    @Test func refusesWhatIsNotAReport() {
        #expect(throws: CheckFailure.self) { try CountSnapshot.status(json: "ok") }
        #expect(throws: CheckFailure.self) { try CountSnapshot.status(json: #"{"ok":false,"error":"not_running"}"#) }
        #expect(throws: CheckFailure.self) { try CountSnapshot.stats(json: #"{"sessions":1}"#) }
    }
}
