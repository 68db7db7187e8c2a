@testable import ControllerSite
import ControllerHTTP
import ControllerMQTT
import Foundation
import Testing

/// What `fleet` and the site page make of the health message each node keeps on the broker
/// (its phase, outbox backlog and problems) and of availability that changes while watching.
@Suite("fleet: each node's health, and since when it is online or not")
struct FleetHealthTests {
    static func message(_ topic: String, _ payload: String, retained: Bool = true) -> MQTTEvent {
        .message(MQTTMessage(topic: topic, payload: Array(payload.utf8), qos: .atLeastOnce, retained: retained))
    }

    static func health(node: String, phase: String = "running", outbox: Int, problems: [String], started: Int64) -> String {
        String(decoding: SitePayload.encode(SitePayload.Health(
            node: node, app: "turnstile", phase: phase, outbox: outbox, problems: problems, started: started)), as: UTF8.self)
    }

    @Test("a node's phase, outbox and problems reach the overview and the table; online since its start")
    func healthReachesTheOverview() throws {
        var view = FleetView(prefix: "site")
        let started: Int64 = 1_800_000_000_000_000_000
        view.take(Self.message("site/n1/availability", "online"), now: started + 5_000_000_000)
        view.take(Self.message("site/n1/health", Self.health(node: "n1", phase: "degraded", outbox: 17, problems: ["degraded: the store cannot write", "2 input edge(s) lost before they were read"], started: started)))
        view.take(Self.message("site/n2/availability", "online"))
        let overview = view.overview(now: started + 60_000_000_000)
        let n1 = try #require(overview.controllers.first { $0.node == "n1" })
        #expect(n1.outbox == 17)
        #expect(n1.phase == "degraded")
        #expect(n1.problems == ["degraded: the store cannot write", "2 input edge(s) lost before they were read"])
        #expect(n1.availabilitySince == SitePayload.timestamp(started))
        #expect(n1.app == "turnstile")
        // A node that never sent health: nothing invented.
        let n2 = try #require(overview.controllers.first { $0.node == "n2" })
        #expect(n2.outbox == nil && n2.problems.isEmpty && n2.availabilitySince == nil)
        let table = view.table(now: started)
        #expect(table.contains("OUTBOX"))
        #expect(table.contains("n1: degraded: the store cannot write; 2 input edge(s) lost before they were read"))
        #expect(view.json(now: started).contains(#""outbox":17"#))
    }

    @Test("offline since the moment the watcher saw it go; the broker's kept value has no such moment")
    func offlineSince() throws {
        var view = FleetView(prefix: "site")
        view.take(Self.message("site/kept/availability", "offline"), now: 1_000)
        view.take(Self.message("site/live/availability", "online"), now: 1_000)
        let wentAt: Int64 = 1_900_000_000_000_000_000
        view.take(Self.message("site/live/availability", "offline", retained: false), now: wentAt)
        let overview = view.overview(now: wentAt)
        #expect(overview.controllers.first { $0.node == "kept" }?.availabilitySince == nil)
        #expect(overview.controllers.first { $0.node == "live" }?.availabilitySince == SitePayload.timestamp(wentAt))
        #expect(overview.online == 0)
    }

    @Test("a node's problems are bounded in number and size, and a health message that is not one is left out")
    func bounded() throws {
        var view = FleetView(prefix: "site")
        let many = (0..<100).map { "problem \($0)" }
        view.take(Self.message("site/n/health", Self.health(node: "n", outbox: 1, problems: many, started: 0)))
        #expect(view.nodes["n"]?.health?.problems.count == FleetLimits.maxProblems)
        let huge = Self.health(node: "m", outbox: 1, problems: [String(repeating: "x", count: FleetLimits.maxPayloadBytes)], started: 0)
        view.take(Self.message("site/m/health", huge))
        view.take(Self.message("site/o/health", "{not json"))
        #expect(view.nodes["m"]?.health == nil)
        #expect(view.notes("m") == ["health: a message of \(huge.utf8.count) bytes, over fleet's \(FleetLimits.maxPayloadBytes): not read"])
        #expect(view.nodes["o"]?.health == nil)
    }

    @Test("a watcher that loses the broker says so until it is subscribed again")
    func brokerAway() {
        var view = FleetView(prefix: "site")
        view.take(.subscribed(MQTTMessageID(1), granted: [.atLeastOnce]))
        #expect(view.overview(now: 0).connected == true)
        view.take(.disconnected(.connectionLost(broker: "mqtt://127.0.0.1:1883", reason: "reset by peer")))
        let away = view.overview(now: 0)
        #expect(away.connected == false)
        #expect(away.brokerProblem?.contains("reset by peer") == true)
    }
}
