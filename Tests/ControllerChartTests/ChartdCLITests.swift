import ControllerChart
import ControllerTestSupport
import Foundation
import Testing

/// `chartd` as a user runs it: its own `--chart`, taken before the runtime's command line.
@Suite("chartd's command line")
struct ChartdCLITests {
    @Test("--chart FILE and --chart=FILE are taken out wherever they are; the rest is the command's")
    func splitsItsOwnArgument() throws {
        let split = try ChartArguments.split(["simulate", "--chart", "door.toml", "--seed", "3"]).get()
        #expect(split.bindingFile == "door.toml" && split.rest == ["simulate", "--seed", "3"])
        let joined = try ChartArguments.split(["--chart=door.toml", "run", "--", "--chart", "x"]).get()
        #expect(joined.bindingFile == "door.toml" && joined.rest == ["run", "--", "--chart", "x"])
        #expect(try ChartArguments.split(["simulate"]).get().bindingFile == nil)
        #expect(throws: ChartArgumentError.missingFile) { try ChartArguments.split(["simulate", "--chart"]).get() }
        #expect(throws: ChartArgumentError.givenTwice) { try ChartArguments.split(["--chart", "a", "--chart", "b"]).get() }
    }

    /// Runs the built `chartd` to its end: status, standard output and standard error. Standard
    /// error goes to a file, read after the exit: a child that fills one pipe while the test reads
    /// the other to its end (a sanitizer's report on standard error) would wait for ever.
    func chartd(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let executable = try builtExecutable(named: "chartd").get()
        return try await offThePool {
            let directory = try TemporaryDirectory()
            let errorsPath = try directory.file("stderr", "")
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsPath))
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let stdout = output.fileHandleForReading.readToEndRetryingInterrupts()
            process.waitUntilExit()
            let stderr = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
            return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), stderr)
        }
    }

    @Test("chartd --chart door.toml simulate: the binding's demo on the binding's board holds, exit 0")
    func simulatesTheDoor() async throws {
        let run = try await chartd(["--chart", repositoryPath("Examples/Charts/door/door.toml"), "simulate"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("open            closed → opening"), "\(run.stdout)")
        #expect(run.stdout.contains("openings 2") && run.stdout.contains("every expect held"), "\(run.stdout)")
        // The header names the binding's board, not a built-in one.
        #expect(run.stdout.contains("board door-sim from ") && run.stdout.contains("Examples/Charts/door/boards/sim.toml,"), "\(run.stdout)")
    }

    @Test("no --chart: the usage, exit 64; a binding that cannot be loaded: its key path, exit 2")
    func refusals() async throws {
        let none = try await chartd(["simulate"])
        #expect(none.status == 64 && none.stderr.contains("which chart? chartd --chart BINDING.toml COMMAND"), "\(none)")
        let directory = try TemporaryDirectory()
        let binding = try directory.file("door.toml", "[chart]\nfile = \"missing.scxml\"\n")
        let missing = try await chartd(["--chart", binding, "simulate"])
        #expect(missing.status == 2 && missing.stderr.contains("missing.scxml"), "\(missing)")
    }

    @Test("chartd run on the door's simulated board: the script's inputs in real time, the counts in the store, exit 0 at its end")
    func runsAsADaemon() async throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("short.scenario", """
            0.1 pulse button
            0.6 expect state opening
            0.6 expect output motor_open 1
            1 set fire on
            1.5 expect state fireOpening
            1.6 set fire off
            2 expect state closed
            2.2 end
            """)
        let database = directory.url.appendingPathComponent("door.db").path
        let run = try await chartd([
            "--chart", repositoryPath("Examples/Charts/door/door.toml"), "run",
            "--board", repositoryPath("Examples/Charts/door/boards/sim.toml"), "--script", script, "--stop-at-end",
            "--no-http", "--database", database, "--control-socket", directory.url.appendingPathComponent("ctl.sock").path,
        ])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("fire            opening → fireOpening (row of service)"), "\(run.stdout)")
        #expect(FileManager.default.fileExists(atPath: database))
    }

    @Test("chartd explore: every sequence to its depth, exit 0; a broken invariant printed with its shortest steps, exit 1")
    func explores() async throws {
        let door = repositoryPath("Examples/Charts/door/door.toml")
        let whole = try await chartd(["--chart", door, "explore"])
        #expect(whole.status == 0 && whole.stdout.hasPrefix("door: ") && whole.stdout.contains(", 6 states, 4 starts"), "\(whole)")
        #expect(!whole.stdout.contains("not saturated") && !whole.stdout.contains("reached:"), "\(whole)")
        let directory = try TemporaryDirectory()
        let binding = try String(contentsOfFile: door, encoding: .utf8)
            .replacing("file = \"door.scxml\"", with: "file = \"\(repositoryPath("Examples/Charts/door/door.scxml"))\"")
            .replacing("demo = \"demo.scenario\"", with: "")
            .replacing("board = \"boards/sim.toml\"", with: "")
            .replacing("[invariants]", with: "[invariants]\n\"never fully open\" = \"!In('open')\"")
        let broken = try await chartd(["--chart", try directory.file("door.toml", binding), "explore"])
        #expect(broken.status == 1, "\(broken)")
        #expect(broken.stdout.contains("violated after pulse button, (timer expires) from a start with no line active: never fully open (broken in open)"), "\(broken)")
    }
}
