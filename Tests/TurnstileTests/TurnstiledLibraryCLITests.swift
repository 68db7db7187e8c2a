import ControllerTestSupport
import Foundation
import Testing

/// The C libraries are opened at run time, and only by what uses them: without one, every
/// command that needs it exits 5 with the library and the package named, before it touches
/// anything (no database file created, no line requested), while `simulate` and a simulated
/// board without `--database` never look for them.
@Suite("turnstiled without a library it opens at run time (CLI)")
struct TurnstiledLibraryCLITests {
    static let refused = ["CONTROLLERFSM_LIBGPIOD": "7"]
    static let message = #"libgpiod could not be loaded: CONTROLLERFSM_LIBGPIOD is "7". Set it to 1 (libgpiod 1.6) or 2 (libgpiod 2.x)"#

    @Test("run on a real chip and lines exit 5 and say why", arguments: [
        ["run", "--board", "boards/raspberry-pi-4.toml", "--no-http"], ["lines"],
    ])
    func realChipCommands(_ arguments: [String]) async throws {
        let resolved = arguments.map { $0.hasPrefix("boards/") ? repositoryPath($0) : $0 }
        let run = try await Turnstiled.run(resolved, environment: Self.refused)
        #expect(run.status == 5, "\(run)")
        #expect(run.stderr.contains(Self.message), "\(run)")
        #expect(!run.stderr.contains("Fatal error"), "\(run)")
    }

    @Test("simulate and a simulated board need no libgpiod")
    func simulatedCommands() async throws {
        let simulate = try await Turnstiled.run(["simulate"], environment: Self.refused)
        #expect(simulate.status == 0 && !simulate.stderr.contains("libgpiod"), "\(simulate)")
        let check = try await Turnstiled.run(["check", "--board", repositoryPath("boards/raspberry-pi-4.toml")], environment: Self.refused)
        #expect(check.status == 0, "\(check)")
    }

    /// A library made unloadable for one process: in a mount namespace of its own, the file is
    /// covered with /dev/null, so the loader finds it "too short" exactly as on a machine where
    /// it is damaged, and the rest of the machine (this test's other processes too) keeps it.
    struct Hidden: CustomTestStringConvertible, Sendable {
        var soname: String
        var package: String
        /// The commands that need it, each with what it must leave behind.
        var commands: [[String]]
        var testDescription: String { soname }
    }

    static let hidden: [Hidden] = [
        Hidden(soname: "libsqlite3.so.0", package: "libsqlite3-0", commands: [
            ["run", "--board", "BOARD", "--no-http", "--database", "DB"],
            ["stats", "--database", "DB"],
        ]),
        Hidden(soname: "libmosquitto.so.1", package: "libmosquitto1", commands: [
            ["run", "--board", "BOARD", "--no-http", "--database", "DB", "--mqtt", "mqtt://127.0.0.1:1"],
            ["fleet", "--mqtt", "mqtt://127.0.0.1:1", "--wait", "1"],
        ]),
    ]

    /// Covering a file needs root (and `unshare`); CI runs as root.
    static let canHide = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")

    @Test("without SQLite or libmosquitto: exit 5 naming the package, and no file left behind",
          .enabled(if: canHide, "needs root and unshare(1) to hide a library in a mount namespace"),
          arguments: hidden)
    func hiddenLibrary(_ library: Hidden) throws {
        let executable = try Turnstiled.executable.get()
        let libraryPath = try #require(LibraryFile.resolved(library.soname), "\(library.soname) is not installed here")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hidden-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("counts.sqlite").path
        for command in library.commands {
            let arguments = command.map { $0 == "BOARD" ? repositoryPath("boards/sim.toml") : $0 == "DB" ? database : $0 }
            let run = try Self.run(executable.path, arguments, hiding: libraryPath)
            #expect(run.status == 5, "\(command): \(run)")
            #expect(run.stderr.contains(library.soname) && run.stderr.contains("apt install \(library.package)"), "\(command): \(run)")
            #expect(!run.stderr.contains("Fatal error"), "\(command): \(run)")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left.isEmpty, "\(command) left \(left) behind")
        }
    }

    static func run(_ executable: String, _ arguments: [String], hiding library: String) throws -> Turnstiled.Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--mount", "/bin/sh", "-c", #"mount --bind /dev/null "$1" && shift && exec "$@""#, "sh", library, executable] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = output.fileHandleForReading.readToEndRetryingInterrupts()
        let err = errors.fileHandleForReading.readToEndRetryingInterrupts()
        process.waitUntilExit()
        return Turnstiled.Run(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                              stderr: String(decoding: err, as: UTF8.self))
    }
}
