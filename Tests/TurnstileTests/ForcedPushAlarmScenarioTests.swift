import ControllerTestSupport
import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// A push while locked is forced: counted, the arm stays held, and the alarm sounds for exactly
/// the board's alarm pulse, whatever the machine does meanwhile.
@Suite("Scenario<TurnstileApplication>: a forced push and the alarm pulse")
struct ForcedPushAlarmScenarioTests {
    struct Meanwhile: Sendable, CustomTestStringConvertible {
        var name: String
        /// Scenario<TurnstileApplication> lines after the forced push at 2.0 s.
        var lines: String
        var finalState: TurnstileState
        var passages = 0
        /// Whether the alarm is still on at the end (the continuous alarm of `broken`).
        var alarmStaysOn = false
        var testDescription: String { name }
    }

    static let meanwhile: [Meanwhile] = [
        Meanwhile(name: "nothing", lines: "", finalState: .locked),
        Meanwhile(name: "a coin unlocks and a passage relocks", lines: "2.15 coin\n2.3 push", finalState: .locked, passages: 1),
        Meanwhile(name: "a coin unlocks and stays unlocked", lines: "2.15 coin", finalState: .unlocked),
        Meanwhile(name: "a fault, then a repair (the continuous alarm ends inside the pulse)",
                  lines: "2.1 fault\n2.3 repair", finalState: .outOfOrder),
        Meanwhile(name: "a fault (the continuous alarm outlasts the pulse)",
                  lines: "2.1 fault", finalState: .broken, alarmStaysOn: true),
        Meanwhile(name: "an emergency on and off", lines: "2.1 emergency on\n2.3 emergency off", finalState: .locked),
        Meanwhile(name: "an emergency that lasts", lines: "2.1 emergency on", finalState: .emergency),
    ]

    @Test("alarm 1 at the forced push, 0 exactly alarm_pulse later", arguments: meanwhile, ["500ms", "1500ms"])
    func alarmPulse(meanwhile: Meanwhile, pulse: String) throws {
        let board = try simBoard(replacing: ["alarm_pulse = \"500ms\"": "alarm_pulse = \"\(pulse)\""])
        let run = try playExpectingSuccess("""
            1.0   expect output alarm 0
            2.0   push
            \(meanwhile.lines)
            4.0   expect counter forcedPushes 1
            4.0   expect counter passages \(meanwhile.passages)
            4.0   expect state \(meanwhile.finalState.name)
            4.0   expect output alarm \(meanwhile.alarmStaysOn ? 1 : 0)
            5     end
            """, board: board)
        let forced = try #require(run.taken(.push, from: .locked).first, "the push at 2.0 was not taken in locked")
        #expect(acceptance(ofPulseAt: seconds(2)).contains(forced.at))
        #expect(forced.to == .locked, "a forced push leaves the turnstile locked")
        let start = forced.at
        let expected: [SimulationRecorder.OutputChange] = meanwhile.alarmStaysOn
            ? [.init(role: .alarm, value: true, time: start)]
            : [.init(role: .alarm, value: true, time: start), .init(role: .alarm, value: false, time: start + board.settings.alarmPulse)]
        #expect(run.changes(of: .alarm) == expected)
    }

    @Test("the arm stays held through a forced push")
    func armStaysHeld() throws {
        let run = try playExpectingSuccess("""
            1     push
            1.1   expect output lock 1
            1.1   expect state locked
            1.1   expect counter forcedPushes 1
            """)
        #expect(run.changes(of: .lock).isEmpty, "the lock output never moved: \(run.changes(of: .lock))")
    }
}
