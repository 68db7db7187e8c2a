import ControllerTestSupport
import Foundation
import Testing

/// `scxml-run` as a user runs it: one line per file, exit 0 only when every file passed, 1
/// otherwise, 2 for a usage error, 5 when libxml2 cannot be loaded (naming the package).
@Suite("scxml-run (CLI)")
struct ScxmlRunCLITests {
    struct Run: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        var description: String { "exit \(status)\n--- stderr:\n\(stderr)\n--- stdout:\n\(stdout)" }
    }

    /// The executable beside the test runner (`swift test` builds every product there).
    static let executable: URL? = {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<searchDepth {
            let candidate = directory.appendingPathComponent("scxml-run")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }()
    /// Directories up from the runner to look in (inside a bundle on Darwin).
    static let searchDepth = 4

    static func run(_ arguments: [String], prefix: [String] = []) throws -> Run {
        let executable = try #require(Self.executable, "scxml-run is not built beside the test runner")
        let process = Process()
        if prefix.isEmpty {
            process.executableURL = executable
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: prefix[0])
            process.arguments = Array(prefix.dropFirst()) + [executable.path] + arguments
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = output.fileHandleForReading.readToEndRetryingInterrupts()
        let err = errors.fileHandleForReading.readToEndRetryingInterrupts()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    @Test("one line per file; exit 0 only when every file passed, else 1; 2 for usage")
    func surface() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scxml-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stuck = directory.appendingPathComponent("stuck.scxml").path
        try scxml(#"<state id="waiting"/><final id="pass"/>"#).write(toFile: stuck, atomically: true, encoding: .utf8)
        let invoke = directory.appendingPathComponent("invoke.scxml").path
        try scxml("<state id=\"a\">\n<invoke src=\"x\"/></state>").write(toFile: invoke, atomically: true, encoding: .utf8)
        let passing = "\(w3cDirectory)/test144.txml"

        // Every W3C test the runtime passes, through the command.
        let all = W3CConformanceTests.passing.sorted().map { "\(w3cDirectory)/\($0)" }
        let good = try Self.run(all)
        #expect(good.status == 0, "\(good)")
        #expect(good.stdout == all.map { "\($0): pass\n" }.joined(), "\(good)")

        let mixed = try Self.run([passing, stuck, invoke])
        #expect(mixed.status == 1, "\(mixed)")
        #expect(mixed.stdout.split(separator: "\n").map(String.init) == [
            "\(passing): pass",
            "\(stuck): fail (ended in waiting)",
            "\(invoke): error: \(invoke):3: <invoke>: not supported: <invoke> starts another session; this loader runs one document alone",
        ], "\(mixed)")

        for usage in [[], ["--frobnicate", passing], ["--events"], ["--events", "--trace", passing], ["--trace"]] {
            let run = try Self.run(usage)
            #expect(run.status == 2 && run.stdout.isEmpty && run.stderr.contains("usage: scxml-run [--events FILE]")
                || run.stderr.contains("--events needs a file"), "\(run)")
        }
    }

    @Test("--events, --trace and --json as a user gives them; an events file that cannot be read exits 2 naming it")
    func eventsAndTrace() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scxml-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let chart = directory.appendingPathComponent("door.scxml").path
        try ExternalEventTraceTests.door.write(toFile: chart, atomically: true, encoding: .utf8)
        let events = directory.appendingPathComponent("events.txt").path
        try "1 open\n".write(toFile: events, atomically: true, encoding: .utf8)

        let plain = try Self.run(["--events", events, chart])
        #expect(plain.status == 1 && plain.stdout == "\(chart): fail (ended in open)\n", "\(plain)")
        let traced = try Self.run(["--trace", "--events", events, chart])
        #expect(traced.stdout.split(separator: "\n").prefix(4) == ["\(chart) at 0 s: start", "  enter closed", "  in closed", "\(chart) at 1 s: open"], "\(traced)")
        let json = try Self.run(["--json", chart])
        #expect(json.stdout == #"{"type":"result","file":"\#(chart)","outcome":"fail","endedIn":["closed"],"externalEvents":0,"t":0}"# + "\n", "\(json)")
        let missing = try Self.run(["--events", directory.appendingPathComponent("none.txt").path, chart])
        #expect(missing.status == 2 && missing.stderr.contains("none.txt: cannot be read: cannot open: No such file or directory"), "\(missing)")
    }

    /// Covering libxml2 with /dev/null in a mount namespace of its own (needs root and
    /// unshare, as CI has): the loader cannot open it, as on a machine without it.
    static let canHide = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")

    @Test("without libxml2: exit 5, naming the package", .enabled(if: canHide, "needs root and unshare(1) to hide a library"))
    func withoutLibxml2() throws {
        let library = try #require(LibraryFile.resolved("libxml2.so.2"), "libxml2 is not installed here")
        let run = try Self.run(
            ["\(w3cDirectory)/test144.txml"],
            prefix: ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", #"mount --bind /dev/null "$1" && shift && exec "$@""#, "sh", library])
        #expect(run.status == 5, "\(run)")
        #expect(run.stderr.contains("apt install libxml2"), "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
    }
}
