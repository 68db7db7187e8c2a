import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// The built-in demo is written for the board it runs on: any valid board gets a demo whose
/// every expectation holds, never a crash (audit finding 6 of the robustness issue: a board
/// wiring only the required lines made `simulate` stop with a fatal error).
@Suite("The built-in demo on any valid board")
struct DemoScenarioTests {
    static let boards: [(String, String)] = [
        ("the required lines only", minimalBoard),
        ("no emergency input", minimalBoard + "[inputs.service]\nline = 3\n[outputs.alarm]\nline = 4\n"),
        ("no service input", minimalBoard + "[inputs.emergency]\nline = 3\n"),
        ("short timings", minimalBoard + """
            [inputs.service]
            line = 3
            [turnstile]
            relock_timeout = "1s"
            repair_period = "1s"
            jam_timeout = "2s"
            alarm_pulse = "100ms"
            """),
        ("long timings and pulses", minimalBoard + """
            [turnstile]
            relock_timeout = "2min"
            jam_timeout = "90s"
            alarm_pulse = "3s"
            [sim]
            coin_pulse = "900ms"
            push_pulse = "2s"
            """.replacingOccurrences(of: "2min", with: "120s")),
    ]

    @Test(arguments: boards.map(\.0))
    func demoHoldsOn(_ name: String) throws {
        let text = try #require(Self.boards.first { $0.0 == name }?.1)
        let board = try BoardFile.parse(text, file: "board.toml")
        let demo = Scenario<TurnstileApplication>.demoText(for: board)
        let run = try playExpectingSuccess(demo, board: board)
        #expect(run.taken(.coin).count > 0 && run.taken(.push).count > 0)
        #expect(run.summary?.state == .locked || board.inputs[.service] == nil, "\(demo)")
    }

    @Test func demoOnTheDefaultBoardVisitsEveryState() throws {
        let run = try playExpectingSuccess(Scenario<TurnstileApplication>.demoText(for: .defaultSim))
        for state in TurnstileMachine.table.atomicStates {
            #expect(run.records.contains { $0.to == state }, "the demo never entered \(state.name)")
        }
    }
}
