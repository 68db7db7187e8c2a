import ControllerTestSupport
import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// A physical input is the truth for as long as it is wired: a command can add to what it says,
/// never undo it. The fire alarm has two sources — the emergency line and `emergency on|off` by
/// command (`ctl`, a scenario's `event`) — and the turnstile is in `emergency` exactly while
/// either holds it. A held push (a jam) is the same rule for `repair`.
@Suite("Emergency: the line and commands, one truth")
struct EmergencySourcesTests {
    @Test("a command cannot end an alarm the line still signals: the arm stays released")
    func commandCannotEndTheLinesAlarm() throws {
        let run = try playExpectingSuccess("""
            1     emergency on
            1.5   event emergencyOff
            1.6   expect state emergency
            1.6   expect output lock 0
            3     emergency off
            3.1   expect state locked
            3.1   expect output lock 1
            3.1   expect counter ignored 0
            """)
        #expect(run.taken(.emergencyOff).map(\.at) == [seconds(3.01)], "the alarm ended when the line went inactive, only then")
    }

    @Test("the line going quiet does not end an alarm a command declared")
    func lineCannotEndTheCommandsAlarm() throws {
        let run = try playExpectingSuccess("""
            1     event emergencyOn
            1.1   expect state emergency
            2     emergency on
            3     emergency off
            3.1   expect state emergency
            3.1   expect output lock 0
            4     event emergencyOff
            4.1   expect state locked
            """)
        #expect(run.taken(.emergencyOn).count == 1, "the line's alarm during the command's is the same alarm")
        #expect(run.taken(.emergencyOff).map(\.at) == [seconds(4)])
    }

    @Test("a controller started during a fire alarm keeps it through a command to end it")
    func startedInAlarm() throws {
        try playExpectingSuccess("""
            0     emergency on
            0.5   event emergencyOff
            0.6   expect state emergency
            0.6   expect output lock 0
            """)
    }

    /// Every order of the two sources' changes, up to five of them: after each, the state is
    /// `emergency` exactly while the line or a command holds the alarm, and the lock follows.
    @Test("every interleaving of line and command: emergency exactly while either holds it")
    func everyInterleaving() throws {
        enum Change: CaseIterable { case lineOn, lineOff, commandOn, commandOff }
        var sequences: [[Change]] = [[]]
        for _ in 0..<5 { sequences = sequences + sequences.flatMap { s in Change.allCases.map { s + [$0] } } }
        var tried = 0
        for sequence in Set(sequences.map { $0.map { "\($0)" } }).sorted(by: { $0.count < $1.count || ($0.count == $1.count && $0.lexicographicallyPrecedes($1)) }) {
            var line = false, command = false
            var text = "", time = 1.0
            var skip = false
            for change in sequence {
                switch change {
                case "lineOn", "lineOff":
                    let on = change == "lineOn"
                    if on == line { skip = true; break }  // a level set twice is refused: not a run
                    line = on
                    text += "\(time) emergency \(on ? "on" : "off")\n"
                case let change:
                    command = change == "commandOn"
                    text += "\(time) event \(command ? "emergencyOn" : "emergencyOff")\n"
                }
                let alarm = line || command
                text += "\(time + 0.1) expect state \(alarm ? "emergency" : "locked")\n"
                text += "\(time + 0.1) expect output lock \(alarm ? 0 : 1)\n"
                time += 1
            }
            if skip { continue }
            let run = try play(text)
            #expect(run.failures.isEmpty, "\(sequence): \(run.failures)\n\(text)")
            tried += 1
        }
        #expect(tried > 200, "the interleavings were tried: \(tried)")
    }

    @Test("a repair by command cannot undo a jam the push line still holds")
    func repairCannotUndoAJam() throws {
        try playExpectingSuccess("""
            1     push hold 40
            31.5  expect state broken
            32    event repair
            32.1  expect state outOfOrder
            38    expect state broken
            38    expect output lock 1
            38    expect output alarm 1
            """)
    }
}
