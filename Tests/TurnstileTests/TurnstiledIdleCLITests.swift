import Foundation
import Testing

/// An idle daemon sleeps until something happens: its drains wait on the controller's doorbell
/// instead of waking every 20 ms (two threads at 50 Hz made about 104 wake-ups a second), and a
/// step after the quiet spell is still reported and committed.
@Suite("turnstiled run sleeps while idle (CLI)")
struct TurnstiledIdleCLITests {
    /// Context switches, voluntary and not, summed over every thread of `pid`.
    static func contextSwitches(of pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var total = 0
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.contains("voluntary_ctxt_switches:") {
                total += Int(line.split(separator: "\t").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            }
        }
        return total
    }

    /// Wake-ups a second an idle daemon may make: the store's backstop (one a second) and the
    /// runtime's own timers, with room for a loaded machine; the 20 ms polls made over 100.
    static let idleWakeupsPerSecond = 25

    @Test("idle with store, HTTP and control socket: few wake-ups a second; a coin after the quiet is reported and committed")
    func idleSleeps() throws {
        let directory = try TemporaryDirectory()
        let socket = directory.url.appendingPathComponent("control.sock").path
        let database = directory.url.appendingPathComponent("counts.sqlite").path
        let daemon = try BackgroundTurnstiled([
            "run", "--board", repositoryPath("boards/sim.toml"), "--json", "--http", "127.0.0.1:0", "--database", database,
            "--control-socket", socket,
        ])
        try #require(daemon.wait(for: .seconds(60)) { $0.records.contains { $0["type"] as? String == "ready" } }, "\(daemon.description)")
        Thread.sleep(forTimeInterval: 1)
        let seconds = 3.0
        let before = Self.contextSwitches(of: daemon.processIdentifier)
        Thread.sleep(forTimeInterval: seconds)
        let after = Self.contextSwitches(of: daemon.processIdentifier)
        let rate = Double(after - before) / seconds
        #expect(rate < Double(Self.idleWakeupsPerSecond), "\(rate) wake-ups a second while idle")

        let pulse = try Turnstiled.run(["ctl", "--socket", socket, "pulse", "coin"])
        #expect(pulse.status == 0, "\(pulse)")
        let reported = daemon.wait(for: .seconds(30)) { daemon in
            daemon.records.contains { $0["type"] as? String == "transition" && $0["event"] as? String == "coin" }
        }
        #expect(reported, "the coin's transition was reported: \(daemon.description)")
        daemon.send(SIGTERM)
        #expect(daemon.waitForExit(timeout: .seconds(30)) == 0, "\(daemon.description)")
        let stats = try Turnstiled.run(["stats", "--database", database, "--json"])
        #expect(stats.stdout.contains(#""coins":1"#), "the coin is durable: \(stats)")
    }
}
