import ArgumentParser
import ControllerDaemon
import ControllerFSM
import ControllerHTTP
import ControllerHost
import ControllerMQTT
import Logging
import ServiceLifecycle
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#endif

/// `fleet`: every controller on the site's broker, from its retained messages alone.
struct Fleet<App: ControllerApplication>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "fleet",
            abstract: "List every controller on the site's MQTT broker: availability, state, totals, the age of its last event, and the site's sums.",
            discussion: """
            A plain MQTT client: it reads the retained availability, state and counters every \
            node publishes under the prefix (turnstiles, barriers, any application of the \
            runtime), so it works from any machine the broker lets in, read-only. It waits \
            --wait seconds for them, prints, and exits; with --follow it prints again on every \
            change until interrupted.

            --retire NODE clears what the broker keeps of a controller gone for good (its \
            retained availability, state, counters, health, inputs and \
            claim, and its Home Assistant device), \
            so neither fleet nor Home Assistant shows it again. It is refused while the node is \
            online (a running node announces itself again), and needs a login the broker lets \
            write those topics: each clearing is checked on the broker.

            --http ADDRESS:PORT serves the site page there instead of printing: every node \
            (online or not and since when, application, state, last event, outbox backlog, \
            problems, totals) and each application's sums, redrawn every second without a \
            reload, with /site.json (what --json prints) and /healthz (503 while the broker \
            is away). It keeps serving through broker outages, until SIGTERM or SIGINT.

            Exit status: 0 when printed (or retired), 1 when the broker could not be reached or \
            refused the login, or the node could not be retired (online, not on the broker, or \
            a clearing the broker did not take), 5 when libmosquitto is not installed, 64 for a \
            bad option.
            """)
    }

    init() {}

    @OptionGroup var connection: MQTTConnectionOptions

    @Flag(name: .long, help: "Print one JSON object (with --follow, one per line and change).")
    var json = false

    @Flag(name: .long, help: "Print again on every change, until interrupted.")
    var follow = false

    @Option(name: .long, help: ArgumentHelp("Seconds to collect the retained messages before printing (0.1 to 60).", valueName: "seconds"))
    var wait: Double = FleetLimits.defaultWaitSeconds

    @Option(name: .long, help: ArgumentHelp(
        "Serve the live site page, /site.json and /healthz here instead of printing (port \(HTTPEndpoint.ports.lowerBound) to \(HTTPEndpoint.ports.upperBound); 0: any free port).",
        valueName: "address:port"))
    var http: HTTPEndpoint?

    @Option(name: .long, help: ArgumentHelp(
        "Retire a controller gone for good: clear its retained messages and its Home Assistant device (refused while it is online).",
        valueName: "node"))
    var retire: String?

    @Option(name: .customLong("mqtt-discovery-prefix"), help: ArgumentHelp(
        "Home Assistant's discovery prefix the node announced itself under (with --retire).", valueName: "prefix"))
    var discoveryPrefix = SiteTopics.defaultDiscoveryPrefix

    func validate() throws {
        guard connection.url != nil else { throw ValidationError("fleet needs --mqtt URL, the site's broker") }
        guard wait.isFinite, FleetLimits.waitSeconds.contains(wait) else {
            throw ValidationError("--wait must be from \(FleetLimits.waitSeconds.lowerBound) to \(FleetLimits.waitSeconds.upperBound) seconds")
        }
        _ = try SiteTopics.checkedDiscoveryPrefix(discoveryPrefix)
        if http != nil, json || follow || retire != nil {
            throw ValidationError("--http serves the page until stopped: it takes neither --json, --follow nor --retire")
        }
        if let node = retire {
            if json || follow { throw ValidationError("--retire clears one node and exits: it takes neither --json nor --follow") }
            do {
                _ = try FleetRetirement(App.self, node: node, prefix: connection.checkedPrefix(), discoveryPrefix: discoveryPrefix)
            } catch {
                throw ValidationError("--retire: \(error)")
            }
        }
    }

    func run() async throws {
        if let http {
            try await serve(http)
            return
        }
        try printOrRetire()
    }

    private func printOrRetire() throws {
        let broker = try connection.broker(connection.url!)
        let prefix = try connection.checkedPrefix()
        let configuration = try connection.configuration(
            broker: broker, clientID: "fleet-\(getpid())", cleanSession: true, will: nil)
        if let node = retire {
            let retirement = Guarded(try FleetRetirement(App.self, node: node, prefix: prefix, discoveryPrefix: discoveryPrefix))
            try self.retire(retirement, broker: broker, configuration: configuration)
            return
        }
        let view = Guarded(FleetView(prefix: prefix))
        let changed = Doorbell()
        let client = try subscribed(
            configuration, broker: broker, filters: FleetView.leaves.map { "\(prefix)/+/\($0)" }, changed: changed,
            take: { event in view.withLock { $0.take(event) } },
            state: { view.withLock { ($0.subscribed, $0.lastFailure) } })
        defer { client.stop() }
        settle(changed)
        var printed = view.withLock { $0.version }
        print(render(view.withLock { $0 }))
        guard follow else { return }
        while true {
            changed.sleep(nanoseconds: 1_000_000_000) { view.withLock { $0.version } != printed }
            let current = view.withLock { $0 }
            guard current.version != printed else { continue }
            printed = current.version
            print(render(current))
        }
    }

    /// `--http`: the site page, fed by a client that stays subscribed (and reconnects) for as
    /// long as the page is served. A broker that is away does not stop the page: it says so.
    private func serve(_ endpoint: HTTPEndpoint) async throws {
        let broker = try connection.broker(connection.url!)
        let prefix = try connection.checkedPrefix()
        let configuration = try connection.configuration(
            broker: broker, clientID: "fleet-\(getpid())", cleanSession: true, will: nil)
        let view = Guarded(FleetView(prefix: prefix))
        let client: MQTTClient
        do {
            client = try MQTTClient(configuration: configuration) { event in view.withLock { $0.take(event) } }
            for leaf in FleetView.leaves { try client.subscribe("\(prefix)/+/\(leaf)") }
            try client.start()
        } catch {
            Terminal.error("fleet: \(error)")
            throw ExitStatus.of(error, otherwise: ExitStatus.refused)
        }
        defer { client.stop() }
        var logger = Logger(label: "\(App.daemonName).fleet", factory: PlainLogHandler.factory(journal: false))
        logger.logLevel = .notice
        let server = SiteServer(
            host: endpoint.host, port: endpoint.port, title: "\(App.daemonName) fleet", logger: logger,
            onListening: { port in Terminal.log("fleet: the site page of \(broker) on http://\(hostPort(endpoint.host, port))/") },
            overview: { view.withLock { $0.overview(now: FleetView.unixNow()) } })
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            Terminal.error("fleet: \(error)")
            throw ExitStatus.refused
        }
    }

    /// A client on `filters`, connected and subscribed, each event given to `take` and rung on
    /// `changed`; `state` says whether the subscription is in, and the last failure to connect.
    private func subscribed(
        _ configuration: MQTTConfiguration, broker: MQTTBrokerURL, filters: [String], changed: Doorbell,
        take: @escaping @Sendable (MQTTEvent) -> Void, state: () -> (subscribed: Bool, lastFailure: String?)
    ) throws -> MQTTClient {
        let client: MQTTClient
        do {
            client = try MQTTClient(configuration: configuration) { event in
                take(event)
                changed.ringAlways()
            }
            for filter in filters { try client.subscribe(filter) }
            try client.start()
        } catch {
            Terminal.error("fleet: \(error)")
            throw ExitStatus.of(error, otherwise: ExitStatus.refused)
        }
        let connectBy = ContinuousClock.now + FleetLimits.connectPatience
        while !state().subscribed {
            guard ContinuousClock.now < connectBy else {
                client.stop()
                Terminal.error("fleet: cannot reach \(broker) within \(FleetLimits.connectPatience): \(state().lastFailure ?? "no answer")")
                throw ExitStatus.refused
            }
            changed.sleep(nanoseconds: FleetLimits.pollNanoseconds) { state().subscribed }
        }
        return client
    }

    /// Retained messages come right after the subscription: waits `--wait` for them to settle.
    private func settle(_ changed: Doorbell) {
        let until = ContinuousClock.now + .milliseconds(Int64(wait * 1_000))
        while ContinuousClock.now < until { changed.sleep(nanoseconds: FleetLimits.pollNanoseconds) { false } }
    }

    /// `--retire`: finds what the broker keeps of the node, refuses an online node, clears the
    /// rest and waits for the broker to show each topic cleared.
    private func retire(_ retirement: Guarded<FleetRetirement>, broker: MQTTBrokerURL, configuration: MQTTConfiguration) throws {
        let changed = Doorbell()
        let topics = retirement.withLock { $0.topics }
        let client = try subscribed(
            configuration, broker: broker, filters: topics, changed: changed,
            take: { event in retirement.withLock { $0.take(event) } },
            state: { retirement.withLock { ($0.subscribed, $0.lastFailure) } })
        defer { client.stop() }
        settle(changed)
        let (node, online, toClear) = retirement.withLock { ($0.node, $0.isOnline, $0.toClear) }
        guard !online else {
            Terminal.error("fleet: \(node) is online (\(retirement.withLock { $0.availabilityTopic })): stop its daemon first; a running node announces itself again")
            throw ExitStatus.refused
        }
        guard !toClear.isEmpty else {
            Terminal.error("fleet: the broker keeps nothing of \(node) (looked at \(topics.joined(separator: ", "))): is the node id right? `fleet` lists the nodes")
            throw ExitStatus.refused
        }
        retirement.withLock { $0.startClearing() }
        do {
            for topic in toClear { _ = try client.publish(topic: topic, payload: [], qos: .atLeastOnce, retain: true) }
        } catch {
            Terminal.error("fleet: retiring \(node): \(error)")
            throw ExitStatus.refused
        }
        let clearedBy = ContinuousClock.now + FleetLimits.connectPatience
        while !retirement.withLock({ $0.unconfirmed.isEmpty }), ContinuousClock.now < clearedBy {
            changed.sleep(nanoseconds: FleetLimits.pollNanoseconds) { retirement.withLock { $0.unconfirmed.isEmpty } }
        }
        let unconfirmed = retirement.withLock { $0.unconfirmed }
        guard unconfirmed.isEmpty else {
            Terminal.error("fleet: the broker did not clear \(unconfirmed.joined(separator: ", ")) within \(FleetLimits.connectPatience): may this login (--mqtt-username) write them? The broker's ACL decides")
            throw ExitStatus.refused
        }
        print("retired \(node): cleared \(toClear.joined(separator: ", "))")
    }

    private func render(_ view: FleetView) -> String {
        let now = FleetView.unixNow()
        return json ? view.json(now: now) : view.table(now: now)
    }
}

/// The bounds of `fleet`.
enum FleetLimits {
    static let defaultWaitSeconds = 2.0
    static let waitSeconds = 0.1...60.0
    static let connectPatience: Duration = .seconds(10)
    /// How often a wait looks again when nothing rings.
    static let pollNanoseconds: Int64 = 50_000_000
    /// Nodes it keeps: a broker that offers more is not a site this view can show.
    static let maxNodes = 10_000
    /// A health message longer than this is not one a daemon sends (its problems are a few
    /// short lines): it is left out.
    static let maxHealthBytes = 8_192
    /// Problems shown per node.
    static let maxProblems = 16
}

/// What the broker has said about each node, from its retained messages.
struct FleetView {
    struct Node: Equatable {
        var availability: String?
        /// When this watcher saw the availability change (Unix nanoseconds); nil for the value
        /// the broker had kept when it subscribed.
        var availabilityChanged: Int64?
        var app: String?
        var state: String?
        var gauges: [String: Int] = [:]
        var totals: [String: Int] = [:]
        var lastEventUnixNanoseconds: Int64?
        var health: SitePayload.Health?
    }

    let prefix: String
    var nodes: [String: Node] = [:]
    var subscribed = false
    var lastFailure: String?
    /// Goes up with every change, so `--follow` prints only what changed.
    var version = 0
    var ignoredNodes = 0

    /// The leaves under each node it watches.
    static let leaves = ["availability", "state", "counters", "health"]

    init(prefix: String) {
        self.prefix = prefix
    }

    mutating func take(_ event: MQTTEvent, now: Int64 = FleetView.unixNow()) {
        switch event {
        case .subscribed: subscribed = true
        case .connected: lastFailure = nil
        case .connectFailed(let error, _): lastFailure = "\(error)"
        case .disconnected(let error):
            subscribed = false
            lastFailure = error.map { "\($0)" } ?? "disconnected"
        case .message(let message): take(message, now: now)
        default: return
        }
    }

    private mutating func take(_ message: MQTTMessage, now: Int64) {
        let levels = message.topic.split(separator: "/", omittingEmptySubsequences: false)
        let prefixLevels = prefix.split(separator: "/").count
        guard levels.count == prefixLevels + 2 else { return }
        let node = String(levels[prefixLevels])
        guard node != SiteTopics.everyNode else { return }
        guard nodes[node] != nil || nodes.count < FleetLimits.maxNodes else {
            ignoredNodes += 1
            return
        }
        var entry = nodes[node] ?? Node()
        switch levels[prefixLevels + 1] {
        case "availability":
            // An empty retained message clears the topic: a node removed from the site.
            let availability = message.payload.isEmpty ? nil : String(decoding: message.payload, as: UTF8.self)
            if let known = entry.availability, known != availability { entry.availabilityChanged = now }
            entry.availability = availability
        case "state":
            guard let state = try? JSONDecoder().decode(SitePayload.State.self, from: Data(message.payload)) else { return }
            entry.app = state.app
            entry.state = state.state
            entry.gauges = state.gauges
        case "counters":
            guard let counters = try? JSONDecoder().decode(SitePayload.Counters.self, from: Data(message.payload)) else { return }
            entry.app = counters.app
            entry.totals = counters.totals
            entry.lastEventUnixNanoseconds = counters.lastEventUnixNanoseconds
        case "health":
            guard message.payload.count <= FleetLimits.maxHealthBytes,
                var health = try? JSONDecoder().decode(SitePayload.Health.self, from: Data(message.payload))
            else { return }
            // A node's words, bounded: a buggy or hostile node cannot fill the page.
            health.problems = Array(health.problems.prefix(FleetLimits.maxProblems))
            entry.app = entry.app ?? health.app
            entry.health = health
        default: return
        }
        guard nodes[node] != entry else { return }
        nodes[node] = entry
        version += 1
    }

    /// Each application's totals summed over its nodes.
    var sums: [String: [String: Int]] {
        var sums: [String: [String: Int]] = [:]
        for node in nodes.values {
            // Totals come from the broker: a buggy or hostile node may claim Int.max. The sum
            // saturates rather than traps, so one node cannot blind the site's overview.
            sums[node.app ?? "?", default: [:]].merge(node.totals) { $0.saturatingAdding($1) }
        }
        return sums
    }

    /// Nanoseconds from a node's `lastEventUnixNanoseconds` (any Int64 the broker carried) to
    /// `now`, held at the Int64 bounds instead of overflowing.
    static func elapsed(since then: Int64, now: Int64) -> Int64 {
        now.saturatingSubtracting(then)
    }

    static func unixNow() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1e9).rounded())
    }

    /// The site as `fleet --json` prints it and the site page shows it.
    func overview(now: Int64) -> SiteOverview {
        let controllers = nodes.keys.sorted().map { name in
            let node = nodes[name]!
            // Online since the process started (its health says when); offline since this
            // watcher saw it go, when it did.
            let since = node.availability == SitePayload.online ? node.health?.started ?? node.availabilityChanged : node.availabilityChanged
            return SiteOverview.Controller(
                node: name, app: node.app, availability: node.availability, availabilitySince: since.map(SitePayload.timestamp),
                phase: node.health?.phase, state: node.state, gauges: node.gauges, totals: node.totals, outbox: node.health?.outbox,
                problems: node.health?.problems ?? [],
                lastEvent: node.lastEventUnixNanoseconds.map(SitePayload.timestamp),
                lastEventAgeSeconds: node.lastEventUnixNanoseconds.map { Double(Self.elapsed(since: $0, now: now)) / 1e9 })
        }
        return SiteOverview(
            controllers: controllers, online: nodes.values.filter { $0.availability == SitePayload.online }.count, sums: sums,
            prefix: prefix, connected: subscribed, brokerProblem: subscribed ? nil : lastFailure, notShown: ignoredNodes > 0 ? ignoredNodes : nil)
    }

    func json(now: Int64) -> String {
        String(decoding: SiteServer.json(overview(now: now)), as: UTF8.self)
    }

    func table(now: Int64) -> String {
        guard !nodes.isEmpty else { return "no controller has published under \(prefix.shown)/ on this broker" }
        let header = ["NODE", "APP", "AVAILABLE", "STATE", "LAST EVENT", "OUTBOX", "TOTALS"]
        var rows = [header]
        for name in nodes.keys.sorted() {
            let node = nodes[name]!
            rows.append([
                name.shown, node.app.map(\.shown) ?? "?", node.availability.map(\.shown) ?? "?", node.state.map(\.shown) ?? "?",
                node.lastEventUnixNanoseconds.map { SiteOverview.age(seconds: Self.elapsed(since: $0, now: now) / 1_000_000_000) } ?? "never",
                node.health.map { "\($0.outbox)" } ?? "?", SiteOverview.counts(node.totals),
            ])
        }
        let widths = (0..<header.count - 1).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            zip(row.dropLast(), widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ") + "  " + row.last!
        }
        let online = nodes.values.filter { $0.availability == SitePayload.online }.count
        lines.append("")
        lines.append("site: \(nodes.count) controller(s), \(online) online")
        for (app, totals) in sums.sorted(by: { $0.key < $1.key }) {
            let count = nodes.values.filter { ($0.app ?? "?") == app }.count
            lines.append("  \(app.shown) (\(count)): \(SiteOverview.counts(totals))")
        }
        for name in nodes.keys.sorted() {
            guard let problems = nodes[name]?.health?.problems, !problems.isEmpty else { continue }
            lines.append("  \(name.shown): \(problems.map(\.shown).joined(separator: "; "))")
        }
        if ignoredNodes > 0 { lines.append("(\(ignoredNodes) message(s) of nodes past \(FleetLimits.maxNodes) were not shown)") }
        return lines.joined(separator: "\n")
    }
}
