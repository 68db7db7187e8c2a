@testable import ControllerCommandLine
@testable import ControllerSite
import ControllerFSM
import ControllerHost
@testable import ControllerHTTP
import ControllerMQTT
import ControllerTestSupport
import Foundation
import Testing
import Turnstile

/// Whatever a node (or anyone the ACL lets write) leaves retained, `fleet`
/// bounds it where the message is taken, before any output. For each topic the fleet reads
/// (``FleetLeaf``'s cases: the code's own list, so a new topic must be given its oversized
/// members here before this compiles), a message past the payload bound (as its client
/// delivers it, cut, and whole, as a client without the bound would) and messages within it
/// whose every value is past its own bound: a long availability, application, state and phase,
/// gauges and totals too many and with long names, problems too many and too long. Every
/// output — the table, `fleet --json`, `/site.json` and the page — stays within a bound
/// computed from ``FleetLimits``, and says what was cut.
@Suite("fleet bounds every value where it takes the message")
struct FleetBoundsTests {
    /// The largest member: 8 MB on one retained topic.
    static let huge = 8 * 1_024 * 1_024

    static func encode(_ value: some Encodable) -> [UInt8] { SitePayload.encode(value) }
    static func text(_ count: Int, _ letter: Character = "x") -> String { String(repeating: letter, count: count) }
    static func named(_ count: Int, nameLength: Int) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { ("\($0)-" + text(nameLength - 4, "n"), $0) })
    }

    /// Messages within the payload bound whose values are each past theirs, by leaf.
    static func overlong(_ leaf: FleetLeaf) -> [(what: String, payload: [UInt8])] {
        let long = text(5_000)
        let payloads: [(String, [UInt8])] = switch leaf {
        case .availability: [("a long availability", Array(text(10_000, "o").utf8))]
        case .state:
            [("a long application and state", encode(SitePayload.State(node: "n", app: long, state: long, active: [long], gauges: [:]))),
             ("many gauges with long names", encode(SitePayload.State(node: "n", app: "gate", state: "open", active: ["open"], gauges: named(100, nameLength: 100))))]
        case .counters:
            [("a long application", encode(SitePayload.Counters(node: "n", app: text(10_000), totals: [:]))),
             ("many totals with long names", encode(SitePayload.Counters(node: "n", app: "gate", totals: named(100, nameLength: 100))))]
        case .health:
            [("a long application and phase", encode(SitePayload.Health(node: "n", app: long, phase: long, outbox: 0, problems: [], started: 0))),
             ("many problems", encode(SitePayload.Health(node: "n", app: "gate", phase: "running", outbox: 0, problems: Array(repeating: text(300), count: 40), started: 0))),
             ("long problems", encode(SitePayload.Health(node: "n", app: "gate", phase: "running", outbox: 0, problems: Array(repeating: text(1_500), count: 8), started: 0)))]
        }
        for (what, payload) in payloads { precondition(payload.count <= FleetLimits.maxPayloadBytes, "\(leaf) \(what): \(payload.count) bytes") }
        return payloads
    }

    /// The most one node's entry in each output may take: its values, its names and its
    /// problems at their bounds, and room for the keys, the notes and the markup around them.
    static let valueBytes = 4 * FleetLimits.maxValueCharacters * 4
        + 2 * FleetLimits.maxNamedValues * (FleetLimits.maxNameCharacters * 4 + 48)
        + FleetLimits.maxProblems * (FleetLimits.maxProblemCharacters * 4 + 48)
    static let perNodeBytes = valueBytes + 4_096

    /// Every output of a view of one node, each checked bounded, and each saying `said`.
    static func expectBoundedOutputs(_ view: FleetView, node: String, saying said: String, _ context: String) throws {
        let overview = view.overview(now: 0)
        let table = view.table(now: 0)
        let json = view.json(now: 0)
        let site = String(decoding: SiteServer.json(overview), as: UTF8.self)
        let page = SitePage(title: "fleet").html(overview)
        #expect(table.utf8.count < perNodeBytes, "\(context): the table is \(table.utf8.count) bytes")
        #expect(json.utf8.count < perNodeBytes, "\(context): --json is \(json.utf8.count) bytes")
        #expect(site == json, "\(context): /site.json is what --json prints")
        #expect(page.utf8.count < perNodeBytes + SitePage.script.utf8.count + StatusPage.css.utf8.count + SitePage.css.utf8.count + 4_096,
                "\(context): the page is \(page.utf8.count) bytes")
        let controller = try #require(overview.controllers.first { $0.node == node }, "\(context)")
        #expect(controller.notes?.contains { $0.contains(said) } == true, "\(context): \(String(describing: controller.notes))")
        #expect(table.contains(said), "\(context): \(table.suffix(600))")
        let decoded = try JSONDecoder().decode(SiteOverview.self, from: Data(json.utf8))
        #expect(decoded.controllers.first { $0.node == node }?.notes?.contains { $0.contains(said) } == true, "\(context)")
        #expect(page.contains(StatusPage.escape(said)), "\(context)")
    }

    @Test("a message past the payload bound on each topic fleet reads, cut by its client or whole: not read, and said so in every output")
    func oversizedMessages() throws {
        for leaf in FleetLeaf.allCases {
            let payload = Array(Self.text(Self.huge).utf8)
            for (how, message) in [
                ("cut by the client", MQTTMessage(topic: "site/n1/\(leaf.rawValue)", payload: Array(payload.prefix(FleetLimits.maxPayloadBytes)),
                                                  qos: .atLeastOnce, retained: true, payloadBytes: payload.count)),
                ("whole", MQTTMessage(topic: "site/n1/\(leaf.rawValue)", payload: payload, qos: .atLeastOnce, retained: true)),
            ] {
                var view = FleetView(prefix: "site")
                // What the node said before: an oversized message replaces it, unread.
                view.take(.message(MQTTMessage(topic: "site/n1/availability", payload: Array("online".utf8), qos: .atLeastOnce, retained: true)))
                view.take(.message(message))
                try Self.expectBoundedOutputs(view, node: "n1", saying: "\(leaf.rawValue): a message of \(Self.huge) bytes", "\(leaf) \(how)")
                if leaf == .availability { #expect(view.nodes["n1"]?.availability == nil) }
            }
        }
    }

    @Test("within the payload bound, every value past its own bound on each topic fleet reads: cut, ending in its length, and said so")
    func overlongValues() throws {
        for leaf in FleetLeaf.allCases {
            for (what, payload) in Self.overlong(leaf) {
                var view = FleetView(prefix: "site")
                view.take(.message(MQTTMessage(topic: "site/n1/\(leaf.rawValue)", payload: payload, qos: .atLeastOnce, retained: true)))
                try Self.expectBoundedOutputs(view, node: "n1", saying: "\(leaf.rawValue): ", "\(leaf): \(what)")
                let node = try #require(view.nodes["n1"], "\(leaf): \(what)")
                let values = [node.availability, node.app, node.state, node.health?.phase].compactMap { $0 }
                #expect(values.allSatisfy { $0.count <= FleetLimits.maxValueCharacters + 20 }, "\(leaf): \(what): \(values.map(\.count))")
                #expect(values.filter { $0.count > 16 && $0 != "running" }.allSatisfy { $0.hasSuffix(" bytes)") }, "\(leaf): \(what): a cut value says its length")
                for names in [node.gauges, node.totals] {
                    #expect(names.count <= FleetLimits.maxNamedValues && names.keys.allSatisfy { $0.count <= FleetLimits.maxNameCharacters + 20 }, "\(leaf): \(what)")
                }
                let problems = node.health?.problems ?? []
                #expect(problems.count <= FleetLimits.maxProblems && problems.allSatisfy { $0.count <= FleetLimits.maxProblemCharacters + 20 }, "\(leaf): \(what)")
            }
        }
    }

    @Test("on mosquitto: fleet's own client takes at most its bound of a retained message on each topic, and the view says it was not read",
          .enabled(if: Broker.enabled, "mosquitto, openssl or libmosquitto is not installed"))
    func throughTheClient() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let fleet = try Fleet<TurnstileApplication>.parse([
            "--mqtt", "mqtt://127.0.0.1:\(broker.plainPort)", "--mqtt-prefix", "nodes", "--mqtt-username", "reader",
            "--mqtt-password-file", broker.file("reader.password"),
        ])
        let configuration = try fleet.session().configuration
        #expect(configuration.maxReceivedPayloadBytes == FleetLimits.maxPayloadBytes)
        // The longest a client of this runtime publishes; one node per topic fleet reads.
        let (writer, writerLog) = try MQTTClient.logged(broker.configuration(user: "site", clientID: "fleet-bounds-writer"))
        try writer.start()
        defer { writer.stop() }
        try #require(await writerLog.first { $0.isConnected } != nil)
        let payload = Array(Self.text(MQTTLimits.maxPayloadBytes).utf8)
        var sent: [MQTTMessageID] = []
        for leaf in FleetLeaf.allCases {
            sent.append(try writer.publish(topic: "nodes/\(leaf.rawValue)-node/\(leaf.rawValue)", payload: payload, qos: .atLeastOnce, retain: true))
        }
        for id in sent { try #require(await writerLog.first { $0 == .published(id) } != nil) }

        let view = Guarded(FleetView(prefix: "nodes"))
        let client = try MQTTClient(configuration: configuration) { event in view.withLock { $0.take(event) } }
        for filter in view.withLock({ $0.filters }) { try client.subscribe(filter) }
        try client.start()
        defer { client.stop() }
        let deadline = ContinuousClock.now + EventLog.patience
        while view.withLock({ $0.nodes.count }) < FleetLeaf.allCases.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let seen = view.withLock { $0 }
        for leaf in FleetLeaf.allCases {
            try Self.expectBoundedOutputs(
                seen, node: "\(leaf.rawValue)-node", saying: "\(leaf.rawValue): a message of \(payload.count) bytes, over fleet's \(FleetLimits.maxPayloadBytes): not read",
                "\(leaf) through the client")
        }
    }
}
