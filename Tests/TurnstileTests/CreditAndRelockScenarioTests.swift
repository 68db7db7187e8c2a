import ControllerTestSupport
import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// Credit stacks while unlocked; passages spend it; the relock timeout expires what is left, and a
/// coin or a passage with credit left restarts that timeout.
@Suite("Scenario<TurnstileApplication>: credit and the relock timeout")
struct CreditAndRelockScenarioTests {
    @Test("three coins give three passages; the last one relocks")
    func creditStacking() throws {
        let run = try playExpectingSuccess("""
            0.0   coin
            0.5   coin
            1.0   coin
            1.5   expect credit 3
            1.5   expect state unlocked
            1.5   expect output lock 0
            2.0   push
            2.5   push
            2.9   expect credit 1
            2.9   expect state unlocked
            3.0   push
            3.5   expect credit 0
            3.5   expect state locked
            3.5   expect output lock 1
            3.5   expect counter passages 3
            3.5   expect counter coins 3
            3.5   expect counter expiredCredits 0
            """)
        #expect(run.statePath == [.locked, .unlocked, .locked])
        #expect(run.taken(.timeout).isEmpty && run.ignored.isEmpty)
        let relock = try #require(run.changes(of: .lock).last)
        #expect(relock.value && relock.time == run.taken(.push).last?.at, "relocked at the last passage")
    }

    @Test("an unused credit expires exactly relock_timeout after the coin", arguments: ["5s", "2.5s"])
    func relockAfterTimeout(relock: String) throws {
        let board = try simBoard(replacing: ["relock_timeout = \"5s\"": "relock_timeout = \"\(relock)\""])
        let run = try playExpectingSuccess("""
            0     coin
            1     expect state unlocked
            10    expect state locked
            10    expect counter expiredCredits 1
            10    expect credit 0
            """, board: board)
        let coin = try #require(run.taken(.coin).first)
        let timeout = try #require(run.taken(.timeout).first, "no relock timeout")
        #expect(timeout.at == coin.at + board.settings.relockTimeout)
        #expect(timeout.from == .unlocked && timeout.to == .locked)
        #expect(run.changes(of: .lock).map(\.time) == [coin.at, timeout.at])
    }

    @Test("a second coin restarts the timeout: no relock at the old deadline")
    func coinRestartsTimeout() throws {
        let run = try playExpectingSuccess("""
            0     coin
            3     coin
            5.5   expect state unlocked
            5.5   expect credit 2
            8.5   expect state locked
            8.5   expect counter expiredCredits 2
            """)
        let coins = run.taken(.coin)
        try #require(coins.count == 2)
        let oldDeadline = coins[0].at + .seconds(5)
        #expect(!run.records.contains { $0.at == oldDeadline }, "something happened at the old deadline: \(run.records)")
        #expect(run.taken(.timeout).map(\.at) == [coins[1].at + .seconds(5)])
        #expect(run.ignored.isEmpty, "a stale timeout must not even be offered: \(run.ignored)")
    }

    @Test("a passage with credit left restarts the timeout too")
    func passageRestartsTimeout() throws {
        let run = try playExpectingSuccess("""
            0     coin
            0.5   coin
            4     push
            5.5   expect state unlocked
            5.5   expect credit 1
            9.5   expect state locked
            9.5   expect counter expiredCredits 1
            9.5   expect counter passages 1
            """)
        let push = try #require(run.taken(.push).first)
        #expect(run.taken(.timeout).map(\.at) == [push.at + .seconds(5)])
    }
}
