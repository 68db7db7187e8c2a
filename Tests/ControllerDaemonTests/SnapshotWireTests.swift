import ControllerTestSupport
import ControllerFSMSim
import Foundation
import Testing
import ControllerHost
import Turnstile
@testable import ControllerDaemon

/// A snapshot's gauges travel as keys of their own: the turnstile's `ctl status` (text and
/// `--json`) and the control protocol's status reply are what they were when the credit was a
/// field of the snapshot, and any application's gauges read back by name.
@Suite("The snapshot on the wire")
struct SnapshotWireTests {
    static let snapshot = DaemonSnapshot(
        phase: "degraded", degradedReason: "store lost: /var/lib/turnstiled/counts.sqlite is read-only", state: "unlocked",
        gauges: ["credit": 3], counters: ["coins": 42, "passages": 37, "forcedPushes": 3, "ignored": 5, "emergencyOn": 1],
        uptimeSeconds: 3725.5, board: "sim (boards/sim.toml)", chip: "simchip0 [turnstiled-sim]", events: 96,
        queueDepth: 1, droppedCommands: 2, lostEdges: 1, traceLosses: 4,
        lastTransitions: [
            TransitionSummary(time: 3655.8, from: "outOfOrder", event: "timeout", to: "locked"),
            TransitionSummary(time: 3720.125, from: "locked", event: "coin", to: "unlocked"),
        ])

    // Made once by the code before gauges (commit 8339870, `credit: 3`) from `snapshot`.
    static let ctlStatus = """
        state    unlocked  phase degraded (store lost: /var/lib/turnstiled/counts.sqlite is read-only)
        credit   3
        uptime   3725.5 s
        board    sim (boards/sim.toml)  chip simchip0 [turnstiled-sim]
        events   96  queue 1  dropped commands 2  lost edges 1  trace losses 4
        counters coins 42, emergencyOn 1, forcedPushes 3, ignored 5, passages 37
        last transitions:
            3655.800 s  outOfOrder --timeout--> locked
            3720.125 s  locked --coin--> unlocked

        """
    static let ctlStatusJSON = #"""
        {"id":1,"ok":true,"status":{"board":"sim (boards/sim.toml)","chip":"simchip0 [turnstiled-sim]","counters":{"coins":42,"emergencyOn":1,"forcedPushes":3,"ignored":5,"passages":37},"credit":3,"degradedReason":"store lost: /var/lib/turnstiled/counts.sqlite is read-only","droppedCommands":2,"events":96,"lastTransitions":[{"event":"timeout","from":"outOfOrder","time":3655.8,"to":"locked"},{"event":"coin","from":"locked","time":3720.125,"to":"unlocked"}],"lostEdges":1,"phase":"degraded","queueDepth":1,"state":"unlocked","traceLosses":4,"uptimeSeconds":3725.5},"v":1}

        """#

    @Test("turnstiled ctl status prints what it printed, text and --json", arguments: [false, true])
    func ctlStatus(json: Bool) throws {
        let scratch = try ScratchDirectory()
        let server = try ControlServer(path: scratch.socket, group: nil) { (_: ControlRequest<TurnstileApplication>, _) in .status(Self.snapshot) }
        defer { server.stop() }
        let run = try Subprocess.run(
            try TurnstiledExecutable.path(), ["ctl", "--socket", scratch.socket, "status"] + (json ? ["--json"] : []))
        #expect(run.status == 0)
        #expect(run.output == (json ? Self.ctlStatusJSON : Self.ctlStatus))
    }

    @Test("the status reply is the line it was, and reads back")
    func statusReply() throws {
        let line = ControlReplyLine(id: 7, reply: .status(Self.snapshot)).encoded(daemon: "turnstiled")
        let old = #"{"id":7,"ok":true,"status":{"board":"sim (boards/sim.toml)","chip":"simchip0 [turnstiled-sim]","counters":{"coins":42,"emergencyOn":1,"forcedPushes":3,"ignored":5,"passages":37},"credit":3,"degradedReason":"store lost: /var/lib/turnstiled/counts.sqlite is read-only","droppedCommands":2,"events":96,"lastTransitions":[{"event":"timeout","from":"outOfOrder","time":3655.8,"to":"locked"},{"event":"coin","from":"locked","time":3720.125,"to":"unlocked"}],"lostEdges":1,"phase":"degraded","queueDepth":1,"state":"unlocked","traceLosses":4,"uptimeSeconds":3725.5},"v":1}"#
        #expect(String(decoding: line, as: UTF8.self) == old + "\n")
        #expect(try ControlReplyLine(parsing: line.dropLast(), daemon: "turnstiled") == ControlReplyLine(id: 7, reply: .status(Self.snapshot)))
    }

    /// Random gauges — names with quotes, spaces, markup, non-ASCII; any number of them; any
    /// values — come back from JSON by name, whichever encoder wrote them, and sit beside the
    /// fields as keys of their own.
    @Test("random gauges read back by name")
    func randomGaugesRoundTrip() throws {
        var random = SplitMix64(seed: 0x5A4D_5A4D)
        let pieces = ["credit", "pressure", "level", "x", "\"", " ", "<b>", "é", "_1", "ß"]
        for _ in 0..<200 {
            var gauges: [String: Int] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let name = (0..<Int.random(in: 1...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
                guard !DaemonSnapshot.isField(name) else { continue }
                gauges[name] = Int.random(in: -1_000_000...1_000_000, using: &random)
            }
            var snapshot = Self.snapshot
            snapshot.gauges = gauges
            snapshot.degradedReason = Bool.random(using: &random) ? nil : "why"
            for sorted in [false, true] {
                let encoder = JSONEncoder()
                if sorted { encoder.outputFormatting = [.sortedKeys] }
                let data = try encoder.encode(snapshot)
                #expect(try JSONDecoder().decode(DaemonSnapshot.self, from: data) == snapshot, "\(gauges)")
                let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                let fields = Set(object.keys).filter(DaemonSnapshot.isField)
                #expect(Set(object.keys).subtracting(fields) == Set(gauges.keys))
            }
        }
    }

    /// A key a newer daemon adds that is not a number is not taken for a gauge, and does not
    /// stop the snapshot being read.
    @Test("a key that is not a number is not a gauge")
    func otherKeysAreLeftAlone() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.snapshot)) as? [String: Any])
        object["firmware"] = "2.1"
        let snapshot = try JSONDecoder().decode(DaemonSnapshot.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(snapshot.gauges == ["credit": 3])
    }
}
