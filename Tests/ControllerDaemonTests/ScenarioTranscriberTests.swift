import ControllerFSM
import Testing
import ControllerHost
import Turnstile
import ControllerDaemon

/// What the flight recorder writes for what the controller took besides edges: commands as the
/// control socket sent them, and what no replay can reproduce.
@Suite("Scenario<TurnstileApplication> transcriber: commands and the unreplayable")
struct ScenarioTranscriberTests {
    func transcribe(_ inputs: [(Double, ControllerInput<TurnstileApplication>)]) -> [String] {
        var transcriber = ScenarioTranscriber<TurnstileApplication>(board: .defaultSim, origin: .zero)
        var lines: [String] = []
        for (seconds, input) in inputs {
            lines += transcriber.take(InputRecord<TurnstileApplication>(time: .zero + .milliseconds(Int64(seconds * 1000)), input: input))
        }
        lines += transcriber.finish(at: .zero + .seconds(10))
        return lines.filter { !$0.contains(" set ") }
    }

    @Test("commands are written as commands: an emergency declared by command replays beside the line, not as it")
    func commandsStayCommands() {
        let lines = transcribe([(1, .command(.emergencyOn)), (2, .command(.emergencyOff)), (3, .command(.repair)), (4, .command(.fault))])
        #expect(lines.prefix(4) == ["1 event emergencyOn", "2 event emergencyOff", "3 event repair", "4 fault"], "\(lines)")
    }

    @Test("a failed output write is written as unreplayable, at its time")
    func failedWriteIsUnreplayable() {
        let lines = transcribe([(1.5, .outputWriteFailed(.lock)), (2, .outputWriteFailed(.alarm))])
        #expect(lines.contains("1.5 unreplayable the lock write failed (the controller raised fault)"), "\(lines)")
        #expect(lines.contains("2 unreplayable the alarm write failed"), "\(lines)")
    }
}
