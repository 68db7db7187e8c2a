import ControllerTestSupport
import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// The fire-alarm line interrupts any state: the arm is released; when it clears, a turnstile
/// that was in service is locked and one that was broken or under repair is broken.
@Suite("Scenario<TurnstileApplication>: emergency")
struct EmergencyScenarioTests {
    struct From: Sendable, CustomTestStringConvertible {
        var state: TurnstileState
        var setup: String
        var after: TurnstileState
        var expiredCredits: Int
        var testDescription: String { "\(state.name) -> emergency -> \(after.name)" }
    }

    static let starts: [From] = [
        From(state: .locked, setup: "", after: .locked, expiredCredits: 0),
        From(state: .unlocked, setup: "0.1 coin\n0.3 coin", after: .locked, expiredCredits: 2),
        From(state: .broken, setup: "0.1 fault", after: .broken, expiredCredits: 0),
        From(state: .outOfOrder, setup: "0.1 repair", after: .broken, expiredCredits: 0),
    ]

    @Test("emergency on and off from each state", arguments: starts)
    func onAndOff(from: From) throws {
        let run = try playExpectingSuccess("""
            \(from.setup)
            0.9   expect state \(from.state.name)
            1     emergency on
            1.1   expect state emergency
            1.1   expect output lock 0
            1.1   expect output ready 0
            1.1   expect output inhibit 1
            1.1   expect output alarm 0
            1.1   expect credit 0
            1.1   expect counter expiredCredits \(from.expiredCredits)
            2     emergency off
            2.1   expect state \(from.after.name)
            2.1   expect output lock 1
            2.1   expect output alarm \(from.after == .broken ? 1 : 0)
            # Past every timer the earlier state had running (relock, repair): none may arrive.
            8     expect state \(from.after.name)
            8     expect counter ignored 0
            8     end
            """)
        let on = try #require(run.taken(.emergencyOn).first)
        let off = try #require(run.taken(.emergencyOff).first)
        #expect(on.from == from.state && on.to == .emergency)
        #expect(off.from == .emergency && off.to == from.after)
        // A level has no bounce: each change is taken one debounce period after it happens.
        #expect(on.at == seconds(1.01) && off.at == seconds(2.01))
        #expect(run.records.last?.event == .emergencyOff, "nothing happened after the emergency: \(run.records)")
    }

    @Test("during an emergency, pushes are free passages and coins are counted out of service")
    func freePassages() throws {
        try playExpectingSuccess("""
            0     coin
            1     emergency on
            1.5   push
            2     coin
            2.5   push
            3     emergency off
            3.5   expect state locked
            3.5   expect counter freePassages 2
            3.5   expect counter passages 0
            3.5   expect counter coins 2
            3.5   expect counter coinsOutOfService 1
            3.5   expect counter expiredCredits 1
            3.5   expect counter forcedPushes 0
            """)
    }

    @Test("a controller started during a fire alarm comes up in emergency, arm released")
    func startedDuringEmergency() throws {
        let run = try playExpectingSuccess("""
            0     emergency on
            0.1   expect state emergency
            0.1   expect output lock 0
            0.5   push
            1     emergency off
            1.1   expect state locked
            1.1   expect output lock 1
            1.1   expect counter freePassages 1
            1.1   expect counter ignored 0
            """)
        let first = try #require(run.records.first)
        #expect((first.at, first.from, first.event, first.to) == (.zero, .locked, .emergencyOn, .emergency),
                "the first dispatch is the emergency found at start: \(first)")
        #expect(run.taken(.emergencyOn).count == 1, "the active line is one emergency, not two")
        #expect(run.changes(of: .lock).first == .init(role: .lock, value: false, time: .zero), "released at start")
        // From the safe initial levels straight to the emergency's: never "ready, coins accepted",
        // the levels of `locked`, which the controller never is.
        #expect(run.changes(of: .ready).filter { $0.time == .zero }.allSatisfy { !$0.value }, "ready went on at start: \(run.changes(of: .ready))")
        #expect(run.changes(of: .inhibit).filter { $0.time == .zero }.allSatisfy { $0.value }, "coins were accepted at start: \(run.changes(of: .inhibit))")
    }

    @Test("a fire alarm at start is found whatever else the scenario does at 0")
    func startedDuringEmergencyWhateverTheOrder() throws {
        let run = try playExpectingSuccess("""
            0     coin
            0     emergency on
            0.1   expect state emergency
            0.1   expect counter coinsOutOfService 1
            """)
        let first = try #require(run.records.first)
        #expect((first.at, first.event, first.to) == (.zero, .emergencyOn, .emergency))
    }

    /// Every count `/status` shows can be named in `expect counter` — the
    /// state counts (`emergencyOn`, `emergencyOff`) and the kind only a restart books
    /// (`creditsVoidedByRestart`, 0 within one run) besides the counters.
    @Test("expect counter names the state counts and the restart-only kinds as /status shows them")
    func stateCountsAreExpectable() throws {
        _ = try playExpectingSuccess("""
            0.5   expect counter emergencyOn 0
            1     emergency on
            1.1   expect counter emergencyOn 1
            1.1   expect counter emergencyOff 0
            2     emergency off
            2.1   expect counter emergencyOff 1
            3     emergency on
            3.1   expect counter emergencyOn 2
            3.1   expect counter creditsVoidedByRestart 0
            4     end
            """)
    }
}

