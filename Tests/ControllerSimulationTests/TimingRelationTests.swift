import ControllerTestSupport
import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// Every timing relation of `TimingRelation`'s table at its boundary: the
/// smallest value that works is read, one nanosecond less is refused, naming the key, the
/// relation and that smallest value. A timing below its relation, if accepted, eats money:
/// every coin expiring unused, every passage a fault, a push never seen.
@Suite("Timing relations: each refused just below its smallest working value")
struct TimingRelationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var relation: String
        /// The board text with VALUE standing for the timing under test.
        var board: String
        var key: String
        var accepted: String
        var refused: String
        /// What the refusal must say (the smallest that works, as a message writes it).
        var message: String
        var testDescription: String { relation }
    }

    /// boards/sim.toml's timings on a board file of its own: push debounce 10 ms, bounce 3 ms.
    static let sim = BoardFile.defaultSimText

    static let cases: [Case] = [
        Case(relation: "relock_timeout ≥ push debounce + 250 ms",
             board: minimalBoard + "[turnstile]\nrelock_timeout = \"VALUE\"\n", key: "turnstile.relock_timeout",
             accepted: "260ms", refused: "259999999ns", message: "relock_timeout ≥ inputs.push.debounce + 0.25 s"),
        Case(relation: "relock_timeout follows the push line's debounce",
             board: minimalBoard.replacingOccurrences(of: "[inputs.push]\nline = 1", with: "[inputs.push]\nline = 1\ndebounce = \"1s\"")
                + "[turnstile]\nrelock_timeout = \"VALUE\"\n", key: "turnstile.relock_timeout",
             accepted: "1.25s", refused: "1249999999ns", message: "the smallest that works on this board is 1.25 s"),
        Case(relation: "jam_timeout ≥ push debounce + 1 s",
             board: minimalBoard + "[turnstile]\njam_timeout = \"VALUE\"\n", key: "turnstile.jam_timeout",
             accepted: "1010ms", refused: "1009999999ns", message: "the smallest that works on this board is 1.01 s"),
        Case(relation: "repair_period ≥ 1 s",
             board: minimalBoard + "[turnstile]\nrepair_period = \"VALUE\"\n", key: "turnstile.repair_period",
             accepted: "1s", refused: "999999999ns", message: "repair_period ≥ 1 s"),
        Case(relation: "alarm_pulse ≥ 100 ms",
             board: minimalBoard + "[turnstile]\nalarm_pulse = \"VALUE\"\n", key: "turnstile.alarm_pulse",
             accepted: "100ms", refused: "99999999ns", message: "alarm_pulse ≥ 0.1 s"),
        Case(relation: "simulated: jam_timeout > push_pulse + bounce_window + push debounce",
             board: sim.replacingOccurrences(of: "push_pulse = \"150ms\"", with: "push_pulse = \"2s\"")
                .replacingOccurrences(of: "jam_timeout = \"30s\"", with: "jam_timeout = \"VALUE\""), key: "turnstile.jam_timeout",
             accepted: "2013000001ns", refused: "2013ms", message: "the smallest that works on this board is 2.013001 s"),
        Case(relation: "simulated: coin debounce < coin_pulse − bounce_window",
             board: sim.replacingOccurrences(of: "[inputs.coin]\nline = \"COIN\"\nactive_low = true\nbias = \"pull-up\"\ndebounce = \"10ms\"",
                                             with: "[inputs.coin]\nline = \"COIN\"\nactive_low = true\nbias = \"pull-up\"\ndebounce = \"VALUE\""),
             key: "inputs.coin.debounce", accepted: "46999999ns", refused: "47ms", message: "is not shorter than"),
        Case(relation: "simulated: push debounce > bounce_window",
             board: sim.replacingOccurrences(of: "[inputs.push]\nline = \"PUSH\"\nactive_low = true\nbias = \"pull-up\"\ndebounce = \"10ms\"",
                                             with: "[inputs.push]\nline = \"PUSH\"\nactive_low = true\nbias = \"pull-up\"\ndebounce = \"VALUE\""),
             key: "inputs.push.debounce", accepted: "3000001ns", refused: "3ms", message: "does not outlast the simulated contact bounce"),
    ]

    /// Parsed, then checked as `simulate` checks a simulated board.
    static func load(_ text: String) throws(BoardFileError) -> BoardFile {
        let board = try BoardFile.parse(text, file: "b.toml")
        if board.backend == .sim { try TurnstileSimulation.checkTimings(of: board, file: "b.toml") }
        return board
    }

    @Test("the smallest working value is read, a nanosecond less refused", arguments: cases)
    func boundary(_ relation: Case) throws {
        #expect(relation.board.contains("VALUE"), "the case's board text no longer has its timing")
        _ = try Self.load(relation.board.replacingOccurrences(of: "VALUE", with: relation.accepted))
        let error = #expect(throws: BoardFileError.self) {
            try Self.load(relation.board.replacingOccurrences(of: "VALUE", with: relation.refused))
        }
        #expect(error?.location == .keyPath(relation.key), "\(String(describing: error))")
        #expect(error?.description.contains(relation.message) == true, "\(String(describing: error))")
    }

    @Test("timings that eat money are refused: relock_timeout of 1 ns or the debounce, jam_timeout under the simulated push",
          arguments: [("relock_timeout", "1ns"), ("relock_timeout", "10ms"), ("jam_timeout", "100ms")])
    func issueExamples(key: String, value: String) {
        let text = Self.sim.replacingOccurrences(of: #"\#(key) = "#, with: #"\#(key) = "\#(value)" # was "#)
        let error = #expect(throws: BoardFileError.self) { try Self.load(text) }
        #expect(error?.location == .keyPath("turnstile.\(key)"), "\(String(describing: error))")
    }

    @Test("a push hold the controller would not see is refused, naming the smallest that works", arguments: [
        ("0.013", false), ("0.012", false), ("0.013000001", true),
    ])
    func pushHold(hold: String, works: Bool) throws {
        let scenario = try Scenario<TurnstileApplication>.parse("0 coin\n0.5 push hold \(hold)\n", file: "s.txt",
                                          vocabulary: TurnstileSimulation.vocabulary(for: .defaultSim))
        if works {
            try TurnstileSimulation.check(scenario, against: .defaultSim)
        } else {
            let error = #expect(throws: ScenarioError.self) { try TurnstileSimulation.check(scenario, against: .defaultSim) }
            #expect(error?.line == 2)
            #expect(error?.description.contains("the smallest that works on this board is 0.013001 s") == true, "\(String(describing: error))")
        }
    }

    @Test("the boards this repository ships satisfy every relation")
    func shippedBoards() throws {
        for name in TurnstileTestSupport.shippedBoards {
            _ = try BoardFile.load(path: repositoryPath("boards/\(name).toml"))
        }
    }
}
