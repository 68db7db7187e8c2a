import ControllerTestSupport
import TurnstileTestSupport
import Foundation
import PropertyBased
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation
#if canImport(Glibc)
import Glibc
#endif

/// Every byte of a board file or scenario is read or refused with its line and column (issue
/// 18, item 2). The TOML library takes the text as a C string and hands keys and strings back
/// as C strings, so a NUL — raw, or as a `\u0000` escape — used to end the file or the value
/// there: `check` said ok to a board whose `[inputs.emergency]`, `fail_mode` and timings had
/// silently fallen back to defaults.
@Suite("Board files and scenarios: a control character anywhere is refused by line and column")
struct BoardFileControlCharacterTests {
    /// Bytes TOML forbids outside a string's escapes (every C0 control but tab and line feed,
    /// and DEL), and CR, which stands only in CR LF.
    static let forbidden: [UInt8] = Array(0x00...0x08) + [0x0B, 0x0C, 0x0D] + Array(0x0E...0x1F) + [0x7F]

    @Test("a control character is refused where it stands, in a comment, a string, a key or between tokens", arguments: [
        ("# note \u{0} more\n", "line 1, column 8: a NUL byte (\\0) is a control character"),
        ("[board]\nname = \"a\u{0}b\"\n", "line 2, column 10: a NUL byte (\\0)"),
        ("[board]\nna\u{0}me = \"a\"\n", "line 2, column 3: a NUL byte (\\0)"),
        ("[inputs.\u{0}coin]\n", "line 1, column 9: a NUL byte (\\0)"),
        ("[board]\u{0}", "line 1, column 8: a NUL byte (\\0)"),
        ("# \u{1B}[2J clear the screen\n", "line 1, column 3: byte 0x1B (escape) is a control character"),
        ("x = 1 \u{7F}\n", "line 1, column 7: byte 0x7F (delete)"),
        ("x = 1\n\u{0C}y = 2\n", "line 2, column 1: byte 0x0C"),
        ("# ö\u{1}\n", "line 1, column 4: byte 0x01"),  // columns count characters, not bytes
    ])
    func controlCharacterRefused(text: String, message: String) {
        let error = #expect(throws: BoardFileError.self) { try BoardFile.parse(text, file: "x.toml") }
        #expect(error?.description.hasPrefix("x.toml: \(message)") == true, "\(String(describing: error))")
    }

    @Test("an escaped NUL in a string or quoted key is refused at its backslash", arguments: [
        ("[board]\nname = \"sim\\u0000 evil\"\n", "line 2, column 12"),
        ("[board]\nname = \"\\U00000000\"\n", "line 2, column 9"),
        ("[inputs.\"co\\u0000x\"]\n", "line 1, column 12"),
        ("x = [\"a\", \"b\\u0000\"]\n", "line 1, column 13"),
        ("x = \"\"\"\nab\\u0000\n\"\"\"\n", "line 2, column 3"),
    ])
    func escapedNULRefused(text: String, position: String) {
        let error = #expect(throws: BoardFileError.self) { try BoardFile.parse(text, file: "x.toml") }
        #expect(error?.description.hasPrefix("x.toml: \(position): an escaped NUL") == true, "\(String(describing: error))")
    }

    @Test("tab, CR LF, other escapes and a literal \\u0000 stay as they were")
    func allowedCharactersStillRead() throws {
        let text = minimalBoard
            .replacingOccurrences(of: "name = \"bench\"", with: "name\t= \"b\\u0065nch\"\t# a\ttab, and 'x\\u0000' is only text here")
            .replacingOccurrences(of: "chip = \"gpiochip0\"", with: "chip = 'gpiochip0'")
            .replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try BoardFile.parse(text, file: "x.toml") == BoardFile.parse(minimalBoard, file: "x.toml"))
    }

    @Test("a board with a NUL in a comment before [turnstile] is refused by check, exit 2")
    func checkRefusesTruncatedBoard() async throws {
        let directory = try TemporaryDirectory()
        let text = try String(contentsOfFile: repositoryPath("boards/sim.toml"), encoding: .utf8)
            .replacingOccurrences(of: "# Inputs are wired", with: "# Inputs \u{0} are wired")
        let run = try await Turnstiled.run(["check", "--board", directory.file("nul.toml", text)])
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains("nul.toml: line 35, column 10: a NUL byte (\\0) is a control character"), "\(run)")
    }

    @Test("random control bytes in a shipped board: refused by line and column, or read as without them",
          arguments: shippedBoards)
    func randomControlBytes(board: String) async throws {
        let original = try String(contentsOfFile: repositoryPath("boards/\(board).toml"), encoding: .utf8)
        let expected = try BoardFile.parse(original, file: "b.toml")
        let scalars = Array(original.unicodeScalars)
        // Each insertion: where (a fraction of the file, in 1/10000) and which forbidden byte.
        let insertions = zip(Gen.int(in: 0...10_000), Gen.int(in: 0...(Self.forbidden.count - 1))).array(of: 1...4)
        await propertyCheck(count: PropertyCases.count(200), input: insertions) { insertions in
            var mutated = scalars
            for (place, which) in insertions {
                mutated.insert(Unicode.Scalar(Self.forbidden[which]), at: place * mutated.count / 10_000)
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: mutated)
            do throws(BoardFileError) {
                let parsed = try BoardFile.parse(text, file: "b.toml")
                #expect(parsed == expected, "read differently, with no error: \(text.debugDescription)")
            } catch {
                guard case .position = error.location else {
                    Issue.record("refused without a line and column: \(error) for \(text.debugDescription)")
                    return
                }
            }
        }
    }

    @Test("a scenario with a control character is refused by line and column", arguments: [
        ("0 coin # \u{0} note\n", "line 1, column 10: a NUL byte (\\0)"),
        ("0 coin\n0.5\u{0B}push\n", "line 2, column 4: byte 0x0B"),
        ("0 coin\r0.5 push\n", "line 1, column 7: a carriage return is not followed by a line feed"),
        ("0 co\u{1B}[31min\n", "line 1, column 5: byte 0x1B (escape)"),
    ])
    func scenarioControlCharacter(text: String, message: String) {
        let error = #expect(throws: ScenarioError.self) {
            try Scenario<TurnstileApplication>.parse(text, file: "s.txt", vocabulary: TurnstileSimulation.vocabulary(for: .defaultSim))
        }
        #expect(error?.description.hasPrefix("s.txt: \(message)") == true, "\(String(describing: error))")
        #expect(error?.line != nil)
    }

    @Test("a scenario with Windows line endings and tabs still reads")
    func scenarioAllowedCharacters() throws {
        let vocabulary = TurnstileSimulation.vocabulary(for: .defaultSim)
        let plain = try Scenario<TurnstileApplication>.parse("0 coin\n0.5 push # note\n", file: "s.txt", vocabulary: vocabulary)
        let windows = try Scenario<TurnstileApplication>.parse("0\tcoin\r\n0.5 push\t# note\r\n", file: "s.txt", vocabulary: vocabulary)
        #expect(plain.steps == windows.steps)
    }

    @Test("SIGHUP with a NUL in the board file is refused, and the running timings are kept")
    func reloadRefusesNUL() async throws {
        let directory = try TemporaryDirectory()
        let original = try TurnstiledDaemonCLITests.simBoard(replacing: #"relock_timeout = "5s""#, with: #"relock_timeout = "2s""#)
        let board = try directory.file("board.toml", original)
        let daemon = try BackgroundTurnstiled(["run", "--board", board, "--json", "--no-http"])
        try #require(await daemon.wait(for: TurnstiledDaemonCLITests.patience) { $0.records.contains { $0["type"] as? String == "ready" } },
                     "\(daemon.description)")

        // Before the fix the text ended at the NUL: [turnstile] fell back to its defaults
        // (relock_timeout 5 s) and the reload said "read again".
        let truncating = original.replacingOccurrences(of: "# Inputs are wired", with: "# Inputs \u{0} are wired")
        _ = try directory.file("board.toml", truncating)
        daemon.send(SIGHUP)
        let answered = await daemon.wait(for: TurnstiledDaemonCLITests.patience) {
            $0.stderr.contains("SIGHUP:") && ($0.stderr.contains("the running configuration stays") || $0.stderr.contains("read again"))
        }
        try #require(answered, "\(daemon.description)")
        #expect(daemon.stderr.contains("line 35, column 10: a NUL byte"), "\(daemon.description)")
        #expect(!daemon.stderr.contains("read again"), "\(daemon.description)")
        #expect(daemon.isRunning, "\(daemon.description)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: TurnstiledDaemonCLITests.patience) == 0, "\(daemon.description)")
    }
}
