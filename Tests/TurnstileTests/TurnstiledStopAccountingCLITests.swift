import ControllerTestSupport
import TurnstileTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import ControllerFSM

/// Nothing accepted is dropped in silence at a stop: `ctl pulse` replies "queued", so a pulse
/// still waiting for its line when SIGTERM comes is named in the stop's warning, and the coins
/// counted plus those named are every accepted pulse (give or take the one under way).
@Suite("turnstiled run: a stop names what it accepted and did not play (CLI)")
struct TurnstiledStopAccountingCLITests {
    /// Enough `ctl pulse coin`s at once to queue many seconds of pulses behind the coin line.
    static let pulses = 20

    @Test("accepted simulated pulses still waiting at SIGTERM are named, and with the coins counted make up every one")
    func waitingPulsesAreNamedAtTheStop() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.url.appendingPathComponent("control.sock").path
        // A coin pulse of a second: the pulses queue behind the line however slowly the `ctl`s
        // come (an instrumented build starts each in a good part of a second).
        let board = try directory.file("board.toml", TurnstiledDaemonCLITests.simBoard(replacing: #"coin_pulse = "50ms""#, with: #"coin_pulse = "1s""#))
        let daemon = try BackgroundTurnstiled(["run", "--board", board, "--json", "--no-http", "--control-socket", socket])
        try #require(await daemon.wait(for: TurnstiledDaemonCLITests.patience) { $0.records.contains { $0["type"] as? String == "ready" } },
                     "\(daemon.description)")

        // Counted from many threads at once: a `Guarded`, whose lock ThreadSanitizer sees also
        // when two of them meet (the standard library's `Mutex` then sleeps on a futex it
        // cannot see).
        let accepted = Guarded(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.pulses {
                group.addTask {
                    if (try? await Turnstiled.run(["ctl", "--socket", socket, "pulse", "coin"]))?.status == 0 {
                        accepted.withLock { $0 += 1 }
                    }
                }
            }
        }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: TurnstiledDaemonCLITests.patience) == 0, "\(daemon.description)")

        let summary = try #require(TurnstiledDaemonCLITests.summary(daemon.stdout), "\(daemon.description)")
        let coins = summary.counters["coins", default: 0]
        let named = Self.namedPulses(in: daemon.stderr)
        let total = accepted.withLock { $0 }
        #expect(total > 0, "\(daemon.description)")
        #expect(named > 0, "a backlog of \(total) accepted pulses left nothing to name: \(daemon.description)")
        #expect((total - 1)...total ~= coins + named, "\(coins) counted + \(named) named, of \(total) accepted: \(daemon.description)")
    }

    /// "N pulse(s) on the coin line" (still waiting for the line) plus each "a pulse on the coin
    /// line" (still in the inbox) in the stop's warning.
    static func namedPulses(in stderr: String) -> Int {
        guard let line = stderr.split(separator: "\n").first(where: { $0.contains("stopped before playing what had been accepted") }) else { return 0 }
        var count = line.components(separatedBy: "a pulse on the coin line").count - 1
        if let range = line.range(of: #"(\d+) pulse\(s\) on the coin line"#, options: .regularExpression) {
            count += Int(line[range].prefix { $0.isNumber }) ?? 0
        }
        return count
    }
}
