import ControllerTestSupport
import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// A service pulse takes the turnstile out of order for exactly the repair period; nothing extends
/// or shortens it.
@Suite("Scenario<TurnstileApplication>: repair")
struct RepairScenarioTests {
    struct From: Sendable, CustomTestStringConvertible {
        var state: TurnstileState
        var setup: String
        var expiredCredits: Int
        var testDescription: String { "from \(state.name)" }
    }

    static let starts: [From] = [
        From(state: .locked, setup: "", expiredCredits: 0),
        From(state: .unlocked, setup: "0.2 coin\n0.4 coin", expiredCredits: 2),
        From(state: .broken, setup: "0.2 fault", expiredCredits: 0),
    ]

    @Test("out of order for exactly repair_period, then locked", arguments: starts)
    func repairPeriod(from: From) throws {
        let run = try playExpectingSuccess("""
            \(from.setup)
            0.9   expect state \(from.state.name)
            1     repair
            1.1   expect state outOfOrder
            1.1   expect output lock 1
            1.1   expect output inhibit 1
            1.1   expect output ready 0
            1.1   expect output alarm 0
            1.1   expect credit 0
            1.1   expect counter repairs 1
            1.1   expect counter expiredCredits \(from.expiredCredits)
            5.9   expect state outOfOrder
            6.1   expect state locked
            6.1   expect output ready 1
            6.1   expect output inhibit 0
            """)
        let repair = try #require(run.taken(.repair).first)
        #expect(acceptance(ofPulseAt: seconds(1)).contains(repair.at))
        #expect(run.taken(.timeout, from: .outOfOrder).map(\.at) == [repair.at + .seconds(5)])
        #expect(run.ignored.isEmpty, "no stale timer may reach the machine: \(run.ignored)")
    }

    @Test("coins during the repair are counted out of service and do not extend it")
    func coinDoesNotExtendRepair() throws {
        let run = try playExpectingSuccess("""
            0     repair
            2     coin
            4.9   coin
            4.9   expect counter coinsOutOfService 1
            5.2   expect state locked
            5.2   expect counter coins 2
            5.2   expect counter coinsOutOfService 2
            5.2   expect credit 0
            """)
        let repair = try #require(run.taken(.repair).first)
        #expect(run.taken(.timeout).map(\.at) == [repair.at + .seconds(5)])
        #expect(run.taken(.coin).allSatisfy { $0.from == .outOfOrder && $0.to == .outOfOrder },
                "coins in outOfOrder are internal: no exit or entry work")
    }

    @Test("a second repair while out of order is ignored and does not restart the period")
    func repairWhileOutOfOrderIsIgnored() throws {
        let run = try playExpectingSuccess("""
            0     repair
            3     repair
            5.2   expect state locked
            5.2   expect counter repairs 1
            5.2   expect counter ignored 1
            """)
        #expect(run.ignored.map(\.event) == [.repair])
        let first = try #require(run.taken(.repair).first)
        #expect(run.taken(.timeout).map(\.at) == [first.at + .seconds(5)])
    }

    @Test("a relock timer pending when the repair begins does not end the repair")
    func pendingRelockDoesNotEndRepair() throws {
        let run = try playExpectingSuccess("""
            0     coin
            3     repair
            5.5   expect state outOfOrder
            7.9   expect state outOfOrder
            8.1   expect state locked
            8.1   expect counter expiredCredits 1
            """)
        let repair = try #require(run.taken(.repair).first)
        #expect(run.taken(.timeout).map(\.at) == [repair.at + .seconds(5)])
        #expect(run.ignored.isEmpty)
    }
}
