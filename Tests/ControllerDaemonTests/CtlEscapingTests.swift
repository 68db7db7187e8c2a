import ControllerTestSupport
import Logging
import Testing
import ControllerHost
import Turnstile
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `turnstiled ctl` prints what a daemon sent, and a daemon's reply is untrusted input to the
/// client: a terminal control sequence or a line break in any string of
/// it is shown escaped, never sent raw to the terminal.
@Suite("turnstiled ctl escapes what the daemon sent")
struct CtlEscapingTests {
    /// Clears the screen, sets the title, recolours, breaks the line and starts a forged one.
    static let hostile = "x\u{1B}[2J\u{1B}]0;owned\u{07}\u{9B}31m\nstate    unlocked"

    static let snapshot = DaemonSnapshot(
        phase: "running" + hostile, state: "locked" + hostile, gauges: ["credit": 0], counters: ["coins" + hostile: 1],
        uptimeSeconds: 3.5, board: "sim" + hostile, chip: "chip" + hostile, events: 2, queueDepth: 0,
        droppedCommands: 0, lostEdges: 0, traceLosses: 0,
        lastTransitions: [TransitionSummary(time: 1, from: "a" + hostile, event: "e" + hostile, to: "b" + hostile)])

    @Test("status, an accepted command and a failure print no control character the daemon sent", arguments: ["status", "repair", "fault", "events"])
    func repliesAreEscaped(command: String) throws {
        let scratch = try ScratchDirectory()
        let server = try ControlServer(path: scratch.socket, group: nil) { (request: TurnstileRequest, _) in
            switch request {
            case .status: .status(Self.snapshot)
            case .command(.repair): .accepted("repair" + Self.hostile)
            case .events: .transitions(Self.snapshot.lastTransitions)
            default: .failure(ControlFailure(code: "refused", message: "no" + Self.hostile))
            }
        }
        defer { server.stop() }
        let run = try Subprocess.run(try TurnstiledExecutable.path(), ["ctl", "--socket", scratch.socket, command])
        let controls = run.output.unicodeScalars.filter { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }
        #expect(controls.isEmpty, "raw control characters reached the terminal: \(run.output.debugDescription)")
        #expect(run.output.contains(#"\u{1B}[2J"#), "the sequence is shown escaped: \(run.output.debugDescription)")
        #expect(!run.output.contains("\nstate    unlocked"), "a forged line: \(run.output.debugDescription)")
    }
}

extension ControlServerTests {
    /// Text a log line or the recording's header quotes — a board's name, a path, a client's
    /// words — cannot end the line and start one of its own. Nested in the
    /// control server's suite for its serialization: other tests arm the log write's faults.
    @Suite("Log lines and the recording's header escape what they quote")
    final class QuotedTextEscapingTests {
        let ends: [Int32]

        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            self.ends = ends
            _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        }

        deinit {
            close(ends[0])
            close(ends[1])
        }

        @Test func aLogMessageAndItsMetadataStayOneLine() {
            let descriptor = ends[1]
            let logger = Logger(label: "test") { PlainLogHandler(label: $0, journal: true, descriptor: descriptor) }
            logger.warning("board sim\n<3>forged \u{1B}[2J", metadata: ["peer": "a\nb"])
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = bytes.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            let text = count <= 0 ? "" : String(decoding: bytes[..<count], as: UTF8.self)
            #expect(text == "<4>board sim\\u{A}<3>forged \\u{1B}[2J peer=a\\u{A}b\n", "\(text.debugDescription)")
        }

        @Test func theRecordingHeaderHoldsNoScenarioLine() {
            var board = BoardFile.defaultSim
            board.name = "sim\n0.5 fault\n#"
            let header = ScenarioTranscriber<TurnstileApplication>.header(board: board, boardPath: "b.toml\n1 coin")
            // A scenario line is any line that is not blank or a comment.
            let lines = header.split(separator: "\n", omittingEmptySubsequences: true)
            #expect(lines.allSatisfy { $0.hasPrefix("#") }, "\(header)")
            #expect(header.contains(#"board sim\u{A}0.5 fault\u{A}#"#), "\(header)")
        }
    }
}
