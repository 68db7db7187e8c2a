import ControllerTestSupport
import TurnstileTestSupport
import Foundation
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// Malformed scenario and board files are refused with exit status 2 before anything runs:
/// nothing on standard output, and one message on standard error naming the file, the line (or
/// key path) and the reason.
@Suite("turnstiled refuses malformed files (CLI)")
struct TurnstiledRefusalCLITests {
    struct BadScenario: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        /// `line N: reason` as the message gives it.
        var location: String
        var testDescription: String { name }
    }

    static let scenarios: [BadScenario] = [
        BadScenario(name: "unknown action", text: "0 coin\n1 dance", location: #"line 2: unknown action "dance""#),
        BadScenario(name: "bad time", text: "0 coin\nsoon coin", location: #"line 2: bad time "soon""#),
        BadScenario(name: "a time with a unit", text: "1.5s coin", location: #"line 1: bad time "1.5s""#),
        BadScenario(name: "time going backwards", text: "2 coin\n# later\n1 push",
                    location: "line 3: time 1 is earlier than 2 on line 1"),
        BadScenario(name: "unknown state in an expect", text: "0 coin\n1 expect state flying",
                    location: #"line 2: unknown state "flying""#),
        BadScenario(name: "unknown counter in an expect", text: "1 expect counter cookies 1",
                    location: #"line 1: unknown counter "cookies""#),
        BadScenario(name: "unknown output in an expect", text: "1 expect output siren 1",
                    location: #"line 1: unknown output "siren""#),
        BadScenario(name: "an output value that is not 0 or 1", text: "1 expect output lock on",
                    location: #"line 1: output value "on" is not 0 or 1"#),
        BadScenario(name: "emergency without on or off", text: "1 emergency", location: "line 1: \"emergency\" is missing on|off"),
        BadScenario(name: "an action after end", text: "1 end\n2 coin", location: "line 2: \"coin\" comes after end on line 1"),
    ]

    @Test("a malformed scenario exits 2 before anything runs", arguments: scenarios, [[], ["--json"]])
    func badScenario(_ bad: BadScenario, mode: [String]) async throws {
        let files = try TemporaryDirectory()
        let path = try files.file("bad.scenario", bad.text)
        let run = try await Turnstiled.run(["simulate", "--script", path] + mode)
        #expect(run.status == 2, "\(run)")
        #expect(run.stdout.isEmpty, "nothing may run or print before the refusal: \(run)")
        #expect(run.stderr.hasPrefix("turnstiled: \(path): \(bad.location)"), "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one message: \(run)")
        // The same words as the library's own error.
        let expected = try #require(throws: ScenarioError.self) {
            try Scenario<TurnstileApplication>.parse(bad.text, file: path, vocabulary: TurnstileSimulation.vocabulary(for: .defaultSim))
        }
        #expect(run.stderr == "turnstiled: \(expected)\n")
    }

    @Test("a malformed scenario on standard input is named <stdin>; check refuses it too")
    func badScenarioOnStandardInput() async throws {
        let simulate = try await Turnstiled.run(["simulate", "--script", "-"], stdin: "0 coin\n1 dance\n")
        #expect(simulate.status == 2 && simulate.stdout.isEmpty, "\(simulate)")
        #expect(simulate.stderr.hasPrefix(#"turnstiled: <stdin>: line 2: unknown action "dance""#), "\(simulate)")

        let check = try await Turnstiled.run(["check", "--board", repositoryPath("boards/sim.toml"), "--script", "-"],
                                       stdin: "3 coin\n2 coin\n")
        #expect(check.status == 2, "\(check)")
        #expect(check.stderr.hasPrefix("turnstiled: <stdin>: line 2: time 2 is earlier than 3 on line 1"), "\(check)")
    }

    @Test("a scenario that drives a line the board does not have is refused")
    func scenarioNeedsALineTheBoardLacks() async throws {
        let files = try TemporaryDirectory()
        let board = try files.file("no-emergency.toml", BoardFile.defaultSimText.replacingOccurrences(
            of: "[inputs.emergency]\nline = \"EMERGENCY\"\nactive_low = true\nbias = \"pull-up\"\ndebounce = \"10ms\"\n", with: ""))
        let script = try files.file("fire.scenario", "0 coin\n5 emergency on\n")
        let run = try await Turnstiled.run(["simulate", "--board", board, "--script", script])
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.hasPrefix("turnstiled: \(script): line 2: this board has no emergency input"), "\(run)")
    }

    @Test("a file that cannot be read exits 2 naming it", arguments: [["--board"], ["--script"]])
    func missingFile(option: [String]) async throws {
        let run = try await Turnstiled.run(["simulate"] + option + ["/nonexistent/file"])
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr == "turnstiled: /nonexistent/file: cannot open: No such file or directory\n", "\(run)")
    }

    struct BadBoard: Sendable, CustomTestStringConvertible {
        var name: String
        var replace: String
        var with: String
        /// Where the message says the problem is, and the start of the reason.
        var location: String
        var testDescription: String { name }
    }

    static let boards: [BadBoard] = [
        BadBoard(name: "unknown input role", replace: "[inputs.service]", with: "[inputs.servce]",
                 location: #"inputs.servce: unknown input role "servce""#),
        BadBoard(name: "unknown output role", replace: "[outputs.alarm]", with: "[outputs.siren]",
                 location: #"outputs.siren: unknown output role "siren""#),
        BadBoard(name: "missing line of a required input", replace: "[inputs.push]\nline = \"PUSH\"\n", with: "[inputs.push]\n",
                 location: "inputs.push.line: missing"),
        BadBoard(name: "missing required input", replace: "[inputs.coin]\nline = \"COIN\"\nactive_low = true\nbias = \"pull-up\"\ndebounce = \"10ms\"\n",
                 with: "", location: "inputs.coin: missing section"),
        BadBoard(name: "missing required output", replace: "[outputs.lock]\nline = 4\nactive_low = false\n", with: "",
                 location: "outputs.lock: missing section"),
        BadBoard(name: "bad TOML: an unquoted text value", replace: "fail_mode = \"secure\"", with: "fail_mode = secure",
                 location: "line LINE, column 13: error while parsing value: could not determine value type"),
        BadBoard(name: "bad TOML: an unclosed section header", replace: "[sim]\ncoin_pulse", with: "[sim\ncoin_pulse", location: "line LINE, column "),
        BadBoard(name: "a value of the wrong kind", replace: "bounce_edges = 4", with: "bounce_edges = \"four\"",
                 location: "sim.bounce_edges: "),
        BadBoard(name: "an unknown key", replace: "jam_timeout", with: "jam_timeuot", location: "turnstile.jam_timeuot: "),
    ]

    @Test("a malformed board exits 2 before anything runs, naming the file, the key or line, and the reason",
          arguments: boards, [["simulate"], ["simulate", "--json"], ["check"]])
    func badBoard(_ bad: BadBoard, command: [String]) async throws {
        let text = BoardFile.defaultSimText
        try #require(text.contains(bad.replace), "the built-in board has no \(bad.replace)")
        let files = try TemporaryDirectory()
        let path = try files.file("bad.toml", text.replacingOccurrences(of: bad.replace, with: bad.with))
        let run = try await Turnstiled.run(command + ["--board", path])
        #expect(run.status == 2, "\(run)")
        #expect(run.stdout.isEmpty, "nothing may run or print before the refusal: \(run)")
        // A syntax error is placed by line: the line the replacement landed on.
        let line = text.components(separatedBy: bad.replace)[0].filter { $0 == "\n" }.count + 1
        let location = bad.location.replacingOccurrences(of: "LINE", with: "\(line)")
        #expect(run.stderr.hasPrefix("turnstiled: \(path): \(location)"), "\(run)")
        let expected = try #require(throws: BoardFileError.self) {
            try BoardFile.parse(text.replacingOccurrences(of: bad.replace, with: bad.with), file: path)
        }
        #expect(run.stderr == "turnstiled: \(expected)\n")
    }
}
