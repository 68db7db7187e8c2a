import ControllerRuntime
import ControllerSite
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
        _ = try connection.checkedPrefix()
        do throws(SiteOptionError) {
            _ = try SiteTopics.checkedDiscoveryPrefix(discoveryPrefix)
        } catch {
            throw ValidationError(error.description)
        }
        if http != nil, json || follow || retire != nil {
            throw ValidationError("--http serves the page until stopped: it takes neither --json, --follow nor --retire")
        }
        if let node = retire {
            if json || follow { throw ValidationError("--retire clears one node and exits: it takes neither --json nor --follow") }
            // The refusal names --retire itself (and the value once): not the daemon's --mqtt-node.
            do throws(SiteOptionError) {
                _ = try FleetRetirement(App.self, node: node, prefix: connection.prefix, discoveryPrefix: discoveryPrefix)
            } catch {
                throw ValidationError(error.description)
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
        let configuration = try readerConfiguration(broker)
        if let node = retire {
            let retirement = Guarded(try FleetRetirement(App.self, node: node, prefix: prefix, discoveryPrefix: discoveryPrefix))
            try self.retire(retirement, broker: broker, configuration: configuration)
            return
        }
        let view = Guarded(FleetView(prefix: prefix))
        let changed = Doorbell()
        let client = try subscribed(
            configuration, broker: broker, filters: view.withLock { $0.filters }, changed: changed,
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
        let configuration = try readerConfiguration(broker)
        let view = Guarded(FleetView(prefix: prefix))
        let client: MQTTClient
        do {
            client = try MQTTClient(configuration: configuration) { event in view.withLock { $0.take(event) } }
            for filter in view.withLock({ $0.filters }) { try client.subscribe(filter) }
            try client.start()
        } catch {
            Terminal.error("fleet: \(error)")
            throw ControllerExit.of(error, otherwise: ControllerExit.refused)
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
            throw ControllerExit.refused
        }
    }

    /// fleet's client: a clean session that takes at most ``FleetLimits/maxPayloadBytes`` of any
    /// message (the rest stays in libmosquitto's buffer; ``FleetView`` says it was not read).
    func readerConfiguration(_ broker: MQTTBrokerURL) throws -> MQTTConfiguration {
        var configuration = try connection.configuration(broker: broker, clientID: "fleet-\(getpid())", cleanSession: true, will: nil)
        configuration.maxReceivedPayloadBytes = FleetLimits.maxPayloadBytes
        return configuration
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
            throw ControllerExit.of(error, otherwise: ControllerExit.refused)
        }
        let connectBy = ContinuousClock.now + FleetLimits.connectPatience
        while !state().subscribed {
            guard ContinuousClock.now < connectBy else {
                client.stop()
                Terminal.error("fleet: cannot reach \(broker) within \(FleetLimits.connectPatience): \(state().lastFailure ?? "no answer")")
                throw ControllerExit.refused
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
            Terminal.error("fleet: '\(node.shown)' is online (\(retirement.withLock { $0.availabilityTopic })): stop its daemon first; a running node announces itself again")
            throw ControllerExit.refused
        }
        guard !toClear.isEmpty else {
            Terminal.error("fleet: the broker keeps nothing of '\(node.shown)' (looked at \(topics.joined(separator: ", "))): is the node id right? `fleet` lists the nodes")
            throw ControllerExit.refused
        }
        retirement.withLock { $0.startClearing() }
        do {
            for topic in toClear { _ = try client.publish(topic: topic, payload: [], qos: .atLeastOnce, retain: true) }
        } catch {
            Terminal.error("fleet: retiring '\(node.shown)': \(error)")
            throw ControllerExit.refused
        }
        let clearedBy = ContinuousClock.now + FleetLimits.connectPatience
        while !retirement.withLock({ $0.unconfirmed.isEmpty }), ContinuousClock.now < clearedBy {
            changed.sleep(nanoseconds: FleetLimits.pollNanoseconds) { retirement.withLock { $0.unconfirmed.isEmpty } }
        }
        let unconfirmed = retirement.withLock { $0.unconfirmed }
        guard unconfirmed.isEmpty else {
            Terminal.error("fleet: the broker did not clear \(unconfirmed.joined(separator: ", ")) within \(FleetLimits.connectPatience): may this login (--mqtt-username) write them? The broker's ACL decides")
            throw ControllerExit.refused
        }
        print("retired '\(node.shown)': cleared \(toClear.joined(separator: ", "))".shownLine)
    }

    private func render(_ view: FleetView) -> String {
        let now = FleetView.unixNow()
        return json ? view.json(now: now) : view.table(now: now)
    }
}
