import Testing
@testable import ControllerDaemon

/// ``DaemonSnapshot/problems(faultStates:)``: what the site's health message lists for an
/// operator, in words, and nothing when all is well.
@Suite("A snapshot's problems in words")
struct SnapshotProblemsTests {
    static func snapshot(
        phase: String = "running", degradedReason: String? = nil, state: String = "locked", lostEdges: Int = 0,
        droppedCommands: Int = 0, traceLosses: Int = 0, outputs: [OutputStatus] = [], site: SiteSnapshot? = nil
    ) -> DaemonSnapshot {
        DaemonSnapshot(
            phase: phase, degradedReason: degradedReason, state: state, gauges: [:], counters: [:], uptimeSeconds: 1, board: "sim",
            chip: "sim", events: 0, queueDepth: 0, droppedCommands: droppedCommands, lostEdges: lostEdges, traceLosses: traceLosses,
            lastTransitions: [], site: site, outputs: outputs)
    }

    @Test("a running controller in a state that is no fault, with nothing lost, has none")
    func none() {
        #expect(Self.snapshot().problems(faultStates: ["broken"]).isEmpty)
        // Starting and draining are phases a controller passes through, not problems.
        #expect(Self.snapshot(phase: "starting").problems().isEmpty)
        #expect(Self.snapshot(phase: "draining").problems().isEmpty)
    }

    @Test("degraded with its reason, a fault state, a held output, a site conflict and every loss, gravest first")
    func each() {
        let site = SiteSnapshot(
            broker: "mqtt://broker", node: "n", connected: true, outboxDepth: 0, deliveredSequence: 0,
            conflict: SiteConflict(instance: String(repeating: "a", count: 32), host: "pi-2", pid: 42, since: 0, yielded: true),
            quickDisconnects: 3)
        let problems = Self.snapshot(
            phase: "degraded", degradedReason: "the chip is gone", state: "broken", lostEdges: 2, droppedCommands: 1, traceLosses: 5,
            outputs: [
                OutputStatus(name: "relay", level: 0, meaning: "locked", held: "held off by its interlock"),
                OutputStatus(name: "lamp", level: 1),
            ],
            site: site
        ).problems(faultStates: ["broken"])
        #expect(problems == [
            "degraded: the chip is gone",
            "in broken",
            "relay held off by its interlock",
            "yielded its node id to another controller (pi-2, pid 42): not publishing",
            "3 quick disconnect(s) from the broker: another client with its client id?",
            "2 input edge(s) lost before they were read",
            "1 command(s) refused: the event loop's inbox was full",
            "5 trace record(s) lost: a ring was full",
        ])
    }
}
