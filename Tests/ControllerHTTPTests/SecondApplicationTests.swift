import Foundation
import Hummingbird
import Testing
import ControllerDaemon
import ControllerFSM
import ControllerHost
@testable import ControllerHTTP

/// `/metrics`, `/status` and the page of an application that is not the turnstile (``Pump``)
/// speak its words: its daemon's namespace and title, its states, counters and gauge.
@Suite struct SecondApplicationTests {
    static func snapshot(state: String = "pumping", pressure: Int = 7, starts: Int = 4) -> DaemonSnapshot {
        DaemonSnapshot(
            phase: "running", state: state, gauges: ["pressure": pressure], counters: ["starts": starts],
            uptimeSeconds: 12.5, board: "pump board", chip: "simchip0 [pump]", events: 9, queueDepth: 0,
            droppedCommands: 0, lostEdges: 0, traceLosses: 0,
            lastTransitions: [TransitionSummary(time: 2, from: "idle", event: "start", to: "pumping")])
    }

    @Test func metricsAreThePumpsFamilies() async throws {
        try await withRoutes(SnapshotSource(Self.snapshot()), of: ControllerMetrics<Pump>()) { client in
            let body = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(body.contains("# HELP pumpd_pressure Pressure in the line, in bar (durable).\n# TYPE pumpd_pressure gauge\n"))
            #expect(sample(body, "pumpd_pressure") == 7)
            #expect(body.contains("# HELP pumpd_state 1 for the pump's current state, 0 for the others."))
            #expect(sample(body, #"pumpd_state{state="pumping"}"#) == 1)
            #expect(sample(body, #"pumpd_state{state="idle"}"#) == 0)
            #expect(body.contains("# HELP pumpd_events_total Pump events by kind (starts, ignored), durable counts."))
            #expect(sample(body, #"pumpd_events_total{kind="starts"}"#) == 4)
            // Declared, not in the snapshot yet: there at 0 from the first scrape.
            #expect(sample(body, #"pumpd_events_total{kind="ignored"}"#) == 0)
            #expect(sample(body, #"pumpd_phase{phase="running"}"#) == 1)
            #expect(sample(body, "pumpd_uptime_seconds") == 12.5)
            for line in body.split(separator: "\n") {
                let name = line.hasPrefix("# ") ? line.split(separator: " ")[2] : line
                #expect(name.hasPrefix("pumpd_"), "\(line)")
            }
            #expect(!body.contains("turnstile") && !body.contains("credit"))
        }
    }

    @Test func theFirstScrapeShowsEveryStateAndTheGaugeAtZero() async throws {
        let metrics = ControllerMetrics<Pump>()
        let empty = DaemonSnapshot(
            phase: "starting", state: "idle", gauges: [:], counters: [:], uptimeSeconds: 0, board: "b", chip: "c",
            events: 0, queueDepth: 0, droppedCommands: 0, lostEdges: 0, traceLosses: 0, lastTransitions: [])
        let body = String(decoding: metrics.render(empty), as: UTF8.self)
        #expect(sample(body, #"pumpd_state{state="idle"}"#) == 1)
        #expect(sample(body, #"pumpd_state{state="pumping"}"#) == 0)
        #expect(sample(body, "pumpd_pressure") == 0)
        #expect(sample(body, #"pumpd_events_total{kind="starts"}"#) == 0)
    }

    @Test func statusCarriesTheGaugeAsAKeyOfItsOwn() async throws {
        let snapshot = Self.snapshot(pressure: 5)
        try await withRoutes(SnapshotSource(snapshot), of: ControllerMetrics<Pump>()) { client in
            try await client.execute(uri: "/status", method: .get) { response in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect(object["pressure"] as? Int == 5)
                #expect(object["credit"] == nil && object["gauges"] == nil)
                let decoded = try JSONDecoder().decode(DaemonSnapshot.self, from: Data(buffer: response.body))
                #expect(decoded == snapshot)
            }
        }
    }

    @Test func thePageIsThePumpsPage() async throws {
        try await withRoutes(SnapshotSource(Self.snapshot(pressure: 6)), of: ControllerMetrics<Pump>()) { client in
            let page = try await client.execute(uri: "/", method: .get) { String(buffer: $0.body) }
            #expect(page.contains("<title>pumpd · pump board</title>"))
            #expect(page.contains("<h1>pumpd</h1>"))
            #expect(page.contains(#"<div><div class="label">pressure</div><div id="pressure" class="big">6</div></div>"#))
            #expect(page.contains(#"$("pressure").textContent = s.pressure;"#))
            #expect(page.contains(#"document.title = "pumpd · " + s.state"#))
            let start = try #require(page.range(of: "<svg")), end = try #require(page.range(of: "</svg>"))
            let diagram = try SVGDocument(String(page[start.lowerBound..<end.upperBound]))
            #expect(diagram.states == ["idle", "pumping"])
            #expect(diagram.current == ["pumping"])
            #expect(!page.contains("turnstile") && !page.contains("credit"))
        }
    }

    @Test func theServerCallsItselfByTheDaemonsName() {
        let server = StatusServer(port: 0, metrics: ControllerMetrics<Pump>()) { Self.snapshot() }
        #expect(server.serverName == "pumpd")
        #expect(server.logger.label == "pumpd.http")
    }

    /// A gauge named like an element of the page (`uptime`) is shown under an id of its own, and
    /// one that is no identifier is read from the snapshot by its quoted name.
    @Test func gaugesNamedLikeThePagesElementsKeepTheirOwnIds() throws {
        let layout = DiagramLayout(StateDiagram(Pump.table))
        let page = StatusPage(daemonName: "pumpd", gauges: ["uptime", "odd \"name\""], diagram: layout)
        var snapshot = Self.snapshot()
        snapshot.gauges = ["uptime": 8, "odd \"name\"": 9]
        let html = page.html(snapshot)
        #expect(html.components(separatedBy: #"id="uptime""#).count == 2)
        #expect(html.contains(#"<div id="gauge-uptime" class="big">8</div>"#))
        #expect(html.contains(#"$("gauge-uptime").textContent = s.uptime;"#))
        #expect(html.contains(#"<div id="odd &quot;name&quot;" class="big">9</div>"#))
        #expect(html.contains(#"$("odd \u0022name\u0022").textContent = s["odd \u0022name\u0022"];"#))
    }

    /// From the hub the daemon publishes to, through the routes: the pump's initial state and
    /// every declared count and gauge at 0 before anything is published, then what was.
    @Test func theHubStartsFromTheDeclaration() async throws {
        let hub = StatusHub<Pump>(board: "pump board", chip: "simchip0", inbox: nil)
        let first = hub.snapshot()
        #expect(first.state == "idle")
        #expect(first.gauges == ["pressure": 0])
        #expect(first.counters == ["starts": 0, "ignored": 0])
        hub.publishLoop(state: .pumping, events: 3, lostEdges: 1)
        hub.publishDurable(counters: ["starts": 2, "ignored": 0], gauges: ["pressure": 4])
        let source = SnapshotSource(hub.snapshot())
        try await withRoutes(source, of: ControllerMetrics<Pump>()) { client in
            let status = try await client.execute(uri: "/status", method: .get) {
                try JSONDecoder().decode(DaemonSnapshot.self, from: Data(buffer: $0.body))
            }
            #expect(status.state == "pumping" && status.events == 3 && status.lostEdges == 1)
            #expect(status.gauges == ["pressure": 4] && status.counters["starts"] == 2)
        }
    }

    /// With no store, the drain's last ledger entry is what status shows, each value under its
    /// declared name.
    @Test func aLedgerEntryIsPublishedByTheDeclaredNames() {
        let hub = StatusHub<Pump>(board: "pump board", chip: "simchip0", inbox: nil)
        var gauges = CounterValues(count: 1), counters = CounterValues(count: 2)
        gauges[0] = 3
        counters[0] = 5
        counters[1] = 1
        hub.publishDurable(after: LedgerEntry<Pump>(time: .zero, state: .pumping, gauges: gauges, counters: counters, cause: nil))
        let snapshot = hub.snapshot()
        #expect(snapshot.gauges == ["pressure": 3])
        #expect(snapshot.counters == ["starts": 5, "ignored": 1])
    }
}
