import ControllerChecks
import Testing

@Suite struct CrashRulesTests {
    let money = StandingBalance(total: "coins", parts: ["passages", "voided"], standing: "credit", voidedByRestart: "voided")

    @Test func everyReportedCountMustBeKept() throws {
        #expect(try CrashRules.kept(reported: ["coins": 3, "passages": 1], after: ["coins": 4, "passages": 1], where: "kill 1") == 2)
        let lost = #expect(throws: CheckFailure.self) {
            try CrashRules.kept(reported: ["coins": 3, "passages": 1], after: ["coins": 2, "passages": 1], where: "kill 1")
        }
        #expect(lost?.message == "kill 1: coins was reported as 3 before the kill but is 2 after it")
        #expect(throws: CheckFailure.self) { try CrashRules.kept(reported: ["faults": 1], after: [:], where: "kill 2") }
    }

    @Test func aBalanceCountsItsStandingGauge() throws {
        try CrashRules.balancesHold([money], in: CountSnapshot(counts: ["coins": 5, "passages": 2, "voided": 1], numbers: ["credit": 2]), where: "here")
        let broken = #expect(throws: CheckFailure.self) {
            try CrashRules.balancesHold([money], in: CountSnapshot(counts: ["coins": 5, "passages": 2], numbers: ["credit": 2]), where: "here")
        }
        #expect(broken?.message == "here: coins does not balance: coins 5 != passages 2 + voided 0 + credit 2")
    }

    @Test func aBalanceWhoseGaugeIsNotReportedFails() {
        let missing = #expect(throws: CheckFailure.self) {
            try CrashRules.balancesHold([money], in: CountSnapshot(counts: ["coins": 0]), where: "here")
        }
        #expect(missing?.message.contains("no credit is reported") == true)
    }

    @Test func statsBalancesMustAllHoldAndBeThere() throws {
        try CrashRules.statsBalancesHold(CountSnapshot(counts: [:], flags: ["moneyBalances": true]), expectingSome: true, where: "x")
        try CrashRules.statsBalancesHold(CountSnapshot(counts: [:]), expectingSome: false, where: "x")
        #expect(throws: CheckFailure.self) {
            try CrashRules.statsBalancesHold(CountSnapshot(counts: [:], flags: ["moneyBalances": false, "other": false]), expectingSome: true, where: "x")
        }
        #expect(throws: CheckFailure.self) { try CrashRules.statsBalancesHold(CountSnapshot(counts: [:]), expectingSome: true, where: "x") }
    }

    @Test func whatStoodAtTheKillIsVoidedByTheRestart() throws {
        let durable = CountSnapshot(counts: ["voided": 4], numbers: ["credit": 2])
        try CrashRules.standingVoidedByRestart([money], durable: durable, restarted: CountSnapshot(counts: ["voided": 6], numbers: ["credit": 0]), where: "k")
        let kept = #expect(throws: CheckFailure.self) {
            try CrashRules.standingVoidedByRestart([money], durable: durable, restarted: CountSnapshot(counts: ["voided": 4], numbers: ["credit": 2]), where: "k")
        }
        #expect(kept?.message == "k: the restarted daemon reports credit 2; a credit never survives a restart")
        #expect(throws: CheckFailure.self) {
            try CrashRules.standingVoidedByRestart([money], durable: durable, restarted: CountSnapshot(counts: ["voided": 5], numbers: ["credit": 0]), where: "k")
        }
    }
}
