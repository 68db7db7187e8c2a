import ControllerTestSupport
import ControllerFSM
import Foundation
import Testing
import ControllerHost
import Turnstile

/// `turnstiled graph`, `--help`, `--version`, and colour only on a terminal without `NO_COLOR`.
@Suite("turnstiled graph, help, version and colour (CLI)")
struct TurnstiledCommandsCLITests {
    @Test("graph prints the turnstile's table as Mermaid (the default) or DOT", arguments: [
        ([], "mermaid"), (["--format", "mermaid"], "mermaid"), (["--format", "dot"], "dot"),
    ])
    func graph(options: [String], format: String) async throws {
        let run = try await Turnstiled.run(["graph"] + options)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        let table = TurnstileMachine.table
        #expect(run.stdout == (format == "dot" ? table.dot(name: "turnstile") : table.mermaid()))
        #expect(run.stdout.hasPrefix(format == "dot" ? "digraph" : "stateDiagram-v2"))
        for state in TurnstileState.allCases { #expect(run.stdout.contains(state.name)) }
        for event in TurnstileEvent.allCases { #expect(run.stdout.contains(event.name)) }
    }

    @Test("--help documents every exit status", arguments: [["--help"], ["help"], ["simulate", "--help"], ["check", "--help"]])
    func help(arguments: [String]) async throws {
        let run = try await Turnstiled.run(arguments)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("Exit status:"), "\(run)")
        for status in ["0", "1", "2", "3", "64"] {
            #expect(run.stdout.contains("\n  \(status) "), "exit status \(status) is not documented: \(run.stdout)")
        }
        #expect(run.stdout.contains("USAGE: turnstiled"))
    }

    @Test("--version prints the version and exits 0")
    func version() async throws {
        let run = try await Turnstiled.run(["--version"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "not a version: \(run.stdout)")
    }

    @Test("the readable trace is coloured on a terminal, unless NO_COLOR is set (to anything but empty)",
          arguments: [(nil, true), ("1", false), ("yes", false), ("", true)] as [(String?, Bool)])
    func colourOnATerminal(noColor: String?, coloured: Bool) async throws {
        let run = try await Turnstiled.runOnTerminal(["simulate"], environment: noColor.map { ["NO_COLOR": $0] } ?? [:])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("every expect held"))
        #expect(run.output.contains("\u{1B}[") == coloured,
                "NO_COLOR=\(noColor.map { "\"\($0)\"" } ?? "unset"): expected \(coloured ? "" : "no ")escape codes")
    }

    @Test("a pipe gets no escape codes", arguments: [[], ["--json"]])
    func noColourInAPipe(mode: [String]) async throws {
        let run = try await Turnstiled.run(["simulate"] + mode)
        #expect(run.status == 0, "\(run)")
        #expect(!run.stdout.contains("\u{1B}"), "escape codes in a pipe")
        #expect(!run.stderr.contains("\u{1B}"))
    }

    @Test("check accepts the shipped boards and a valid scenario")
    func checkAcceptsValidFiles() async throws {
        for board in ["boards/sim.toml", "boards/raspberry-pi-1-3.toml", "boards/raspberry-pi-4.toml", "boards/raspberry-pi-5.toml"] {
            let run = try await Turnstiled.run(["check", "--board", repositoryPath(board)])
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.hasPrefix("\(repositoryPath(board)): ok"), "\(run)")
        }
        let run = try await Turnstiled.run(["check", "--board", repositoryPath("boards/sim.toml"), "--script", "-"],
                                     stdin: "0 coin\n1 expect state unlocked\n")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("<stdin>: ok — 2 steps"), "\(run)")
    }
}
