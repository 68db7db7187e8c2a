@testable import ControllerRuntime
import ControllerDaemon
import ControllerHost
import ControllerStore
import ControllerTestSupport
import Foundation
import Testing
import Turnstile
import TurnstileTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The whole daemon in this process, its options built in code as a `main` of its own builds
/// them: every service `run` wires together (the lines on the simulated chip, the
/// event loop, the reporter, the store service, the control socket, the signals, the drain),
/// with the test's own signals, log and printer in place of the process's. Each test takes a
/// second or two; what only a process has (its exit status, standard error, real signals) is
/// tested on the built `turnstiled` in TurnstileTests.
@Suite("The daemon in-process: run's services on a simulated chip", .serialized)
struct DaemonInProcessTests {
    typealias App = TurnstileApplication
    typealias InProcessDaemon = ControllerRuntimeTests.InProcessDaemon<App>
    static let patience = TestTimeouts.daemon

    /// A board file like boards/sim.toml in `directory`, with `replacing`'s texts replaced.
    static func board(in directory: TemporaryDirectory, replacing: [String: String] = [:]) throws -> String {
        var text = try String(contentsOfFile: repositoryPath("boards/sim.toml"), encoding: .utf8)
        for (old, new) in replacing {
            try #require(text.contains(old), "boards/sim.toml has no \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return try directory.file("board.toml", text)
    }

    /// Sends `request` over the control socket at `path`, retrying while the socket is not there
    /// yet; the reply.
    static func ask(_ path: String, _ request: ControlRequest<App>) async throws -> ControlReply {
        let deadline = ContinuousClock.now + patience
        while true {
            do {
                let client = try ControlClient<App>(path: path)
                try client.send(ControlRequestLine(id: 1, request: request))
                let reply = try #require(try client.nextReply(timeoutSeconds: Double(patience.components.seconds)))
                return reply.reply
            } catch is ControlClientError where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    struct UnexpectedReply: Error, CustomStringConvertible {
        var reply: ControlReply
        var description: String { "status was answered with \(reply)" }
    }

    /// The daemon's snapshot, once `condition` holds of it (or the last one, at the bound).
    static func status(_ path: String, until condition: (DaemonSnapshot) -> Bool) async throws -> DaemonSnapshot {
        let deadline = ContinuousClock.now + patience
        while true {
            let reply = try await ask(path, .status)
            guard case .status(let snapshot) = reply else { throw UnexpectedReply(reply: reply) }
            if condition(snapshot) || ContinuousClock.now >= deadline { return snapshot }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("a script played to its end: every transition reported, the counts durable in the store, the lock driven locked")
    func scriptToItsEnd() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.url.appendingPathComponent("counts.sqlite").path
        let script = try directory.file("run.txt", """
            0.05 coin
            0.3 push
            0.6 expect counter passages 1
            0.7 end
            """)
        let recorder = SimulationRecorder()
        var options = RunOptions(board: try Self.board(in: directory))
        options.script = script
        options.stopAtEnd = true
        options.database = database
        options.http = nil
        let daemon = InProcessDaemon(options, printer: recorder)
        #expect(await daemon.exitCode() == nil, "\(daemon.log.lines)")

        #expect(recorder.statePath.map(\.name) == ["locked", "unlocked", "locked"], "\(recorder.log)")
        #expect(recorder.failures.isEmpty)
        let summary = try #require(recorder.summary)
        #expect(summary.counters.coins == 1 && summary.counters.passages == 1)
        #expect(summary.checkedExpectations == 1)
        // The lock's stop level (fail_mode secure): locked, and that is the last write.
        #expect(recorder.changes(of: .lock).last?.value == true, "\(recorder.log)")
        #expect(daemon.log.lines.contains { $0.hasPrefix("stopped: lock driven to 1") }, "\(daemon.log.lines)")
        // What the summary says is what the store made durable.
        let store = try CountStore<App>.openForReading(path: database)
        defer { try? store.close() }
        let totals = try store.totals()
        #expect(totals.counters["coins"] == 1 && totals.counters["passages"] == 1, "\(totals)")
        #expect(totals.state == .locked)
    }

    @Test("SIGTERM through its signals: the control socket's pulses counted, the drain makes them durable")
    func stopBySignal() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.url.appendingPathComponent("counts.sqlite").path
        let socket = directory.url.appendingPathComponent("ctl.sock").path
        let recorder = SimulationRecorder()
        var options = RunOptions(board: try Self.board(in: directory))
        options.database = database
        options.controlSocket = socket
        options.http = nil
        let daemon = InProcessDaemon(options, printer: recorder)

        // The socket answers from the start; commands are taken once the daemon runs (before,
        // they are refused as `not_running`, as `ctl` is told).
        let running = try await Self.status(socket) { $0.phase == "running" }
        #expect(running.phase == "running", "\(running)")
        let coin = try await Self.ask(socket, .pulse("coin"))
        #expect(coin == .accepted("pulse coin"), "\(coin)")
        let unlocked = try await Self.status(socket) { $0.state == "unlocked" }
        #expect(unlocked.state == "unlocked", "\(unlocked)")
        let push = try await Self.ask(socket, .pulse("push"))
        #expect(push == .accepted("pulse push"), "\(push)")
        let passed = try await Self.status(socket) { $0.counters["passages"] == 1 && $0.state == "locked" }
        #expect(passed.counters["coins"] == 1 && passed.counters["passages"] == 1, "\(passed)")

        daemon.send(SIGTERM)
        #expect(await daemon.exitCode() == nil, "\(daemon.log.lines)")
        #expect(recorder.summary?.counters.passages == 1)
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket is removed at the stop")
        let store = try CountStore<App>.openForReading(path: database)
        defer { try? store.close() }
        #expect(try store.totals().counters["passages"] == 1)
    }

    @Test("SIGHUP through its signals: the board's new settings are taken; a board whose lines changed is refused")
    func reloadBySignal() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.url.appendingPathComponent("ctl.sock").path
        let board = try Self.board(in: directory)
        var options = RunOptions(board: board)
        options.controlSocket = socket
        options.http = nil
        let daemon = InProcessDaemon(options, printer: SimulationRecorder())
        _ = try await Self.status(socket) { $0.phase == "running" }

        let original = try String(contentsOfFile: board, encoding: .utf8)
        try original.replacingOccurrences(of: #"relock_timeout = "5s""#, with: #"relock_timeout = "7s""#)
            .write(toFile: board, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        _ = await poll(for: Self.patience) { daemon.log.lines.contains { $0.hasPrefix("SIGHUP:") } }
        #expect(daemon.log.lines.contains { $0.hasPrefix("SIGHUP: \(board) read again") && $0.contains("relock_timeout") }, "\(daemon.log.lines)")

        try original.replacingOccurrences(of: #"line = "COIN""#, with: #"line = "PUSH2""#)
            .write(toFile: board, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        _ = await poll(for: Self.patience) { daemon.log.lines.filter { $0.hasPrefix("SIGHUP:") }.count >= 2 }
        #expect(daemon.log.lines.last { $0.hasPrefix("SIGHUP:") }?.contains("the running configuration stays") == true, "\(daemon.log.lines)")

        daemon.send(SIGTERM)
        #expect(await daemon.exitCode() == nil, "\(daemon.log.lines)")
    }

    @Test("an expect that fails: the printer is told, and the run ends with status 1")
    func failedExpectation() async throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("run.txt", "0.1 expect state unlocked\n0.2 end\n")
        let recorder = SimulationRecorder()
        var options = RunOptions(board: try Self.board(in: directory))
        options.script = script
        options.stopAtEnd = true
        options.http = nil
        let daemon = InProcessDaemon(options, printer: recorder)
        #expect(await daemon.exitCode() == ControllerExit.expectationFailed.rawValue)
        #expect(recorder.failures.count == 1, "\(recorder.failures)")
        #expect(recorder.failures.first?.description.contains("unlocked") == true)
    }

    @Test("a damaged count database is refused (status 4) before a line is requested, and kept")
    func damagedDatabase() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.file("counts.sqlite", String(repeating: "not a database\n", count: 400))
        let recorder = SimulationRecorder()
        var options = RunOptions(board: try Self.board(in: directory))
        options.database = database
        options.http = nil
        let daemon = InProcessDaemon(options, printer: recorder)
        #expect(await daemon.exitCode() == ControllerExit.storeError.rawValue)
        #expect(recorder.outputs.isEmpty, "no output was written: \(recorder.log)")
        #expect(try String(contentsOfFile: database, encoding: .utf8).hasPrefix("not a database"))
    }

    /// Options that do not hold, each with the start of its refusal.
    static let refusedOptions: [(String, RunOptions)] = {
        let board = RunOptions(board: "b.toml")
        var stopAtEnd = board, retention = board, group = board, site = board, node = board
        stopAtEnd.stopAtEnd = true
        retention.retentionDays = 0
        retention.database = "x.sqlite"
        group.controlGroup = "users"
        site.site.connection.url = "mqtt://127.0.0.1"
        node.site.node = "n1"
        return [
            ("--stop-at-end needs --script", stopAtEnd), ("--retention-days must be between", retention),
            ("--control-group needs --control-socket", group), ("--mqtt needs --database", site), ("--mqtt-node needs --mqtt", node),
        ]
    }()

    @Test("options that do not hold are refused before anything runs, naming the option", arguments: refusedOptions)
    func sameValidation(message: String, options: RunOptions) async throws {
        #expect(throws: DaemonOptionError.self) { try options.validate(App.self) }
        do {
            try options.validate(App.self)
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
        }
        // The daemon itself refuses them so, whoever built them: status 64, no board read.
        let recorder = SimulationRecorder()
        let daemon = InProcessDaemon(options, printer: recorder)
        #expect(await daemon.exitCode() == ControllerExit.usage.rawValue)
    }
}
