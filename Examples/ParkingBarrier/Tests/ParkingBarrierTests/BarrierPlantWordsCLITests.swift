import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `barrierd ctl plant …` against a running daemon on the simulated board:
/// a person at the console says what the scenario would (`arm stuck`), the simulated arm obeys,
/// the machine answers as it would on the road, and the recording keeps the words for a replay.
@Suite("barrierd: the plant's words over ctl (CLI)", .serialized)
struct BarrierPlantWordsCLITests {
    /// How long the daemon and the arm may take: a loaded machine is slow, never wrong.
    static let patience: Duration = .seconds(20)

    /// `barrierd run` in the background, its standard output to a file.
    final class Daemon {
        let process = Process()
        let output: URL

        init(_ arguments: [String], in directory: TemporaryDirectory) throws {
            output = directory.url.appendingPathComponent("daemon.out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            process.executableURL = try Barrierd.executable()
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = process.standardOutput
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        func stop() -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }

        deinit { if process.isRunning { process.terminate() } }
    }

    static func state(socket: String) -> String? {
        guard let run = try? Barrierd.run(["ctl", "--socket", socket, "--json", "status"]), run.status == 0,
              let line = run.stdout.split(separator: "\n").first,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        return (object["status"] as? [String: Any])?["state"] as? String ?? object["state"] as? String
    }

    static func waitFor(_ what: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            if what() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    @Test("arm stuck, then a request: the arm never reaches the top and the motor times out into fault; the recording has the words")
    func armStuck() throws {
        let directory = try TemporaryDirectory()
        let board = try directory.file("board.toml", BarrierRecordReplayTests.quickBoard())
        let socket = directory.url.appendingPathComponent("ctl.sock").path
        let recording = directory.url.appendingPathComponent("recorded.txt").path
        let daemon = try Daemon(["run", "--board", board, "--control-socket", socket, "--record", recording, "--json", "--no-http"], in: directory)
        try #require(Self.waitFor { Self.state(socket: socket) == "closed" }, "the daemon never answered: \(daemon.log)")

        let stuck = try Barrierd.run(["ctl", "--socket", socket, "plant", "arm", "stuck"])
        #expect(stuck.status == 0 && stuck.stdout.contains("plant arm stuck"), "\(stuck)")
        let request = try Barrierd.run(["ctl", "--socket", socket, "pulse", "request"])
        #expect(request.status == 0, "\(request)")
        // The motor runs for motor_timeout (1.5 s) and the arm, stuck, never leaves its rest.
        #expect(Self.waitFor { Self.state(socket: socket) == "fault" }, "\(daemon.log)")
        let free = try Barrierd.run(["ctl", "--socket", socket, "plant", "arm", "free"])
        #expect(free.status == 0, "\(free)")

        let wrong = try Barrierd.run(["ctl", "--socket", socket, "plant", "arm", "sideways"])
        #expect(wrong.status == 64 && wrong.stderr.contains("arm stuck|free"), "\(wrong)")
        #expect(daemon.stop() == 0, "\(daemon.log)")
        let recorded = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(recorded.contains(" arm stuck\n") && recorded.contains(" arm free\n"), "\(recorded)")
    }
}
