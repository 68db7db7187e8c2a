import ControllerTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Readiness means what it says: with `--http`, `running` (and the ready
/// record, and systemd's READY=1, which the same gate holds) comes only after the status server
/// listens, so whoever starts sending edges on it meets a daemon whose start-up work is done.
@Suite("turnstiled run: ready only once its status server listens (CLI)")
struct TurnstiledReadinessCLITests {
    @Test("with --http, the status server's line comes before running, every time", arguments: 0..<4)
    func runningAfterTheStatusServer(run: Int) async throws {
        let daemon = try BackgroundTurnstiled(["run", "--board", repositoryPath("boards/sim.toml"), "--http", "127.0.0.1:0", "--json"])
        let running = await daemon.wait(for: TestTimeouts.daemon) { $0.stderr.contains("running;") }
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit(timeout: TestTimeouts.daemon)
        try #require(running, "\(daemon.description)")
        let stderr = daemon.stderr
        let listening = try #require(stderr.range(of: "status page and metrics on http://"), "\(daemon.description)")
        let ready = try #require(stderr.range(of: "running;"))
        #expect(listening.lowerBound < ready.lowerBound, "running before the status server listened:\n\(stderr)")
    }
}
