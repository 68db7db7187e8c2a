import ControllerTestSupport
import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// `fault` is the one scenario action that is a direct event (no line carries it): it is taken at
/// the step's own time, with no debounce delay.
@Suite("Scenario<TurnstileApplication>: fault as a direct event")
struct FaultScenarioTests {
    struct In: Sendable, CustomTestStringConvertible {
        var state: TurnstileState
        var setup: String
        var taken: Bool
        var expiredCredits = 0
        var testDescription: String { "fault in \(state.name)" }
    }

    static let states: [In] = [
        In(state: .locked, setup: "", taken: true),
        In(state: .unlocked, setup: "0.1 coin\n0.3 coin", taken: true, expiredCredits: 2),
        In(state: .broken, setup: "0.1 fault", taken: false),
        In(state: .outOfOrder, setup: "0.1 repair", taken: false),
        In(state: .emergency, setup: "0.1 emergency on", taken: false),
    ]

    @Test("fault breaks locked and unlocked (credit expires); elsewhere it is ignored", arguments: states)
    func fault(in start: In) throws {
        let run = try playExpectingSuccess("""
            \(start.setup)
            1     expect state \(start.state.name)
            1     fault
            1.1   expect counter expiredCredits \(start.expiredCredits)
            1.1   expect credit 0
            """)
        let fault = try #require(run.records.last { $0.event == .fault })
        #expect(fault.at == seconds(1), "a direct event is taken at its own time")
        #expect(fault.from == start.state)
        if start.taken {
            #expect(fault.to == .broken)
            #expect(run.changes(of: .alarm).last == .init(role: .alarm, value: true, time: seconds(1)))
            #expect(run.changes(of: .lock).last?.value ?? true, "the relay holds the arm")
        } else {
            #expect(fault.outcome == .ignored && fault.to == start.state)
        }
    }

    @Test("an expect at the fault's own time sees the state before it; a nanosecond later, after it")
    func expectAtTheSameTime() throws {
        try playExpectingSuccess("""
            2     fault
            2     expect state locked
            2     expect counter faults 0
            2.000000001 expect state broken
            2.000000001 expect counter faults 1
            """)
    }

    @Test("broken: the alarm sounds on, coins are counted out of service, pushes are ignored")
    func whileBroken() throws {
        let run = try playExpectingSuccess("""
            1     fault
            2     coin
            3     push
            4     expect state broken
            4     expect output alarm 1
            4     expect output ready 0
            4     expect output inhibit 1
            4     expect counter coins 1
            4     expect counter coinsOutOfService 1
            4     expect counter ignored 1
            """)
        #expect(run.changes(of: .alarm).count == 1, "the coin did not re-raise the alarm: \(run.changes(of: .alarm))")
        #expect(run.ignored.map(\.event) == [.push])
    }
}
