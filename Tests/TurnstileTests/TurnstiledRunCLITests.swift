import ControllerTestSupport
import Foundation
import Testing

/// `turnstiled run` and `turnstiled lines` where the board's chip is not there (this machine has
/// no GPIO chips, or not that one): one message that says what exists and what to do, exit 3,
/// no crash report. Against a real chip they run in the VM (scripts/hil/).
@Suite("turnstiled run and lines without the board's chip (CLI)")
struct TurnstiledRunCLITests {
    @Test("run on a Raspberry Pi board exits 3 with \"chip not found\"", arguments: [
        ("boards/raspberry-pi-1-3.toml", "label \"pinctrl-bcm2835\""),
        ("boards/raspberry-pi-4.toml", "label \"pinctrl-bcm2711\""),
        ("boards/raspberry-pi-5.toml", "label \"pinctrl-rp1\""),
    ])
    func runWithoutTheChip(board: String, lookedFor: String) async throws {
        let run = try await Turnstiled.run(["run", "--board", repositoryPath(board)])
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("GPIO chip not found: looked for \(lookedFor)"), "\(run)")
        #expect(run.stderr.contains("turnstiled lines"), "the message says how to list the chips: \(run)")
        #expect(!run.stderr.contains("Fatal error") && !run.stderr.contains("Stack dump"), "\(run)")
        #expect(run.stderr.split(separator: "\n").count <= 2, "one message, not a trace: \(run)")
    }

    @Test("run refuses --script on a board with real lines, and says why")
    func scriptNeedsASimulatedBoard() async throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("s.txt", "1 coin\n")
        let run = try await Turnstiled.run(["run", "--board", repositoryPath("boards/raspberry-pi-4.toml"), "--script", script])
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains("simulated board"), "\(run)")
    }

    @Test("lines for a chip that is not there exits 3 and lists what there is")
    func linesForAMissingChip() async throws {
        let run = try await Turnstiled.run(["lines", "--chip", "no-such-chip"])
        #expect(run.status == 3, "\(run)")
        // Without libgpiod on the test machine, the refusal is that it is missing (exit 3 too).
        #expect(run.stderr.contains("no-such-chip") || run.stderr.contains("no GPIO chips")
            || run.stderr.contains("libgpiod could not be loaded"), "\(run)")
    }
}
