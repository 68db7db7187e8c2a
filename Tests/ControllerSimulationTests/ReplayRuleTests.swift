import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// What record and replay share: a reload's timings as `set` lines that
/// `simulate` applies at their time, and the line rule's earliest time, never rounded down.
@Suite("Replay: set lines and the line rule's earliest time")
struct ReplayRuleTests {
    @Test("set relock_timeout takes effect for the next timer, after everything before it")
    func setTakesEffect() throws {
        let recorder = try playExpectingSuccess("""
            0 coin
            0.5 set relock_timeout 1
            0.6 coin
            1.5 expect state unlocked
            1.7 expect state locked
            1.7 expect counter expiredCredits 2
            2 set jam_timeout 0.5
            2.1 push hold 0.7
            3 expect state broken

            """)
        #expect(recorder.summary?.counters.faults == 1, "the push held past the new 0.5 s jam timeout is a jam")
    }

    @Test("set lines are refused with the key and the rule", arguments: [
        ("1 set relock_timout 3", #"run.scenario: line 1: unknown timing "relock_timout"; did you mean "relock_timeout"? timings: relock_timeout, repair_period, jam_timeout, alarm_pulse"#),
        ("1 set relock_timeout 0", "run.scenario: line 1: relock_timeout must be longer than 0 seconds; write a time in seconds, like 5 or 0.5"),
        ("1 set alarm_pulse 86401", "run.scenario: line 1: alarm_pulse 86401 is too long; board timings are at most a day (86400 s)"),
        ("1 set jam_timeout", #"run.scenario: line 1: "set" is missing SECONDS; write "set TIMING SECONDS""#),
    ])
    func setRefusals(text: String, message: String) {
        #expect {
            try Scenario<TurnstileApplication>.parse(text, file: scenarioFile, vocabulary: TurnstileSimulation.vocabulary(for: .defaultSim))
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test("the earliest time a refusal suggests is rounded up, so it is accepted")
    func suggestedTimeWorks() throws {
        // A debounce of 10.0005 ms puts the line's earliest next pulse between two microseconds.
        var board = BoardFile.defaultSim
        board.inputs[.coin]?.debounce = .nanoseconds(10_000_500)
        let vocabulary = TurnstileSimulation.vocabulary(for: board)
        let refused = try Scenario<TurnstileApplication>.parse("0 coin\n0.063 coin\n", file: "s.txt", vocabulary: vocabulary)
        let error = #expect(throws: ScenarioError.self) { try TurnstileSimulation.check(refused, against: board) }
        let hint = try #require(error?.description.split(separator: "move it to ").last, "\(String(describing: error))")
        let suggested = try #require(hint.split(separator: " ").first)
        #expect(suggested == "0.063001", "\(String(describing: error))")
        let moved = try Scenario<TurnstileApplication>.parse("0 coin\n\(suggested) coin\n", file: "s.txt", vocabulary: vocabulary)
        try TurnstileSimulation.check(moved, against: board)
    }
}
