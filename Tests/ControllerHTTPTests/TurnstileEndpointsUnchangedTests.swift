import Foundation
import Hummingbird
import Testing
import ControllerDaemon
import Turnstile
@testable import ControllerHTTP

/// The turnstile's `/status`, page and `/metrics` are what they were before status, metrics and
/// the page read the application's declaration: every expected text here was made once by the
/// code before that change (commit 8339870, when the snapshot had a `credit` field and the
/// metrics named the turnstile's states, counters and credit themselves) from `snapshot`. One
/// change since, made by hand in the page's fixture: the health table's two MQTT rows,
/// shown only when the snapshot has a site, which this one has not; and one made by hand in the
/// metrics' fixture: the three lines of `output_overrides_total` (the host says when it does
/// not drive what the machine asks), 0 here. And in the page's fixture, the outputs card and
/// the script line that fills it (every output's level and meaning on the page). And in the
/// page's fixture, what a nested machine's page has: the turnstile has superstates, so its diagram is drawn in their frames, with the frames' style, and the state card
/// has a line under the state for the superstates around it (`#around`, its style and the script
/// line that fills it); the rest of the page, compared line by line, did not change.
@Suite struct TurnstileEndpointsUnchangedTests {
    static let snapshot = DaemonSnapshot(
        phase: "degraded", degradedReason: "store lost: /var/lib/turnstiled/counts.sqlite is read-only", state: "unlocked",
        gauges: ["credit": 3],
        counters: ["coins": 42, "passages": 37, "forcedPushes": 3, "expiredCredits": 2, "faults": 1,
                   "coinsOutOfService": 0, "repairs": 1, "freePassages": 0, "ignored": 5, "emergencyOn": 1, "emergencyOff": 1,
                   "creditsVoidedByRestart": 0],
        uptimeSeconds: 3725.5, board: "sim (boards/sim.toml)", chip: "simchip0 [turnstiled-sim]", events: 96,
        queueDepth: 1, droppedCommands: 2, lostEdges: 1, traceLosses: 4,
        lastTransitions: [
            TransitionSummary(time: 3655.8, from: "outOfOrder", event: "timeout", to: "locked"),
            TransitionSummary(time: 3720.125, from: "locked", event: "coin", to: "unlocked"),
        ])

    static let degradedJSON = #"{"board":"sim (boards/sim.toml)","chip":"simchip0 [turnstiled-sim]","counters":{"coins":42,"coinsOutOfService":0,"creditsVoidedByRestart":0,"emergencyOff":1,"emergencyOn":1,"expiredCredits":2,"faults":1,"forcedPushes":3,"freePassages":0,"ignored":5,"passages":37,"repairs":1},"credit":3,"degradedReason":"store lost: /var/lib/turnstiled/counts.sqlite is read-only","droppedCommands":2,"events":96,"lastTransitions":[{"event":"timeout","from":"outOfOrder","time":3655.8,"to":"locked"},{"event":"coin","from":"locked","time":3720.125,"to":"unlocked"}],"lostEdges":1,"phase":"degraded","queueDepth":1,"state":"unlocked","traceLosses":4,"uptimeSeconds":3725.5}"#

    static let runningJSON = #"{"board":"sim (boards/sim.toml)","chip":"simchip0 [turnstiled-sim]","counters":{"coins":42,"coinsOutOfService":0,"creditsVoidedByRestart":0,"emergencyOff":1,"emergencyOn":1,"expiredCredits":2,"faults":1,"forcedPushes":3,"freePassages":0,"ignored":5,"passages":37,"repairs":1},"credit":3,"droppedCommands":2,"events":96,"lastTransitions":[{"event":"timeout","from":"outOfOrder","time":3655.8,"to":"locked"},{"event":"coin","from":"locked","time":3720.125,"to":"unlocked"}],"lostEdges":1,"phase":"running","queueDepth":1,"state":"unlocked","traceLosses":4,"uptimeSeconds":3725.5}"#

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static var running: DaemonSnapshot {
        var snapshot = snapshot
        snapshot.phase = "running"
        snapshot.degradedReason = nil
        return snapshot
    }

    @Test("/status is the JSON it was, the credit a key of its own, and reads back", arguments: [
        (snapshot, degradedJSON), (running, runningJSON),
    ])
    func statusJSON(snapshot: DaemonSnapshot, expected: String) async throws {
        try await withRoutes(SnapshotSource(snapshot)) { client in
            try await client.execute(uri: "/status", method: .get) { response in
                #expect(String(buffer: response.body) == expected)
                let decoded = try JSONDecoder().decode(DaemonSnapshot.self, from: Data(buffer: response.body))
                #expect(decoded == snapshot)
            }
        }
    }

    @Test("the page is the page it was")
    func page() async throws {
        let expected = try String(contentsOf: Self.fixtures.appendingPathComponent("turnstile-page.html"), encoding: .utf8)
        try await withRoutes(SnapshotSource(Self.snapshot)) { client in
            let page = try await client.execute(uri: "/", method: .get) { String(buffer: $0.body) }
            #expect(page == expected)
        }
    }

    /// The registry emits its families and series in hash order, which differs from run to run:
    /// the lines are compared sorted.
    @Test("/metrics has the families, help texts, labels and values it had")
    func metrics() async throws {
        let expected = try String(contentsOf: Self.fixtures.appendingPathComponent("turnstile-metrics-sorted.txt"), encoding: .utf8)
        let metrics = ControllerMetrics<TurnstileApplication>()
        for microseconds: Int64 in [18, 22, 35, 41, 60, 140] {
            metrics.recordLockLatency(nanoseconds: microseconds * 1000)
        }
        try await withRoutes(SnapshotSource(Self.snapshot), metrics: metrics) { client in
            let body = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            let lines = body.split(separator: "\n").sorted()
            let expectedLines = expected.split(separator: "\n")
            #expect(lines.count == expectedLines.count)
            for (line, expectedLine) in zip(lines, expectedLines) {
                #expect(line == expectedLine)
            }
        }
    }
}
