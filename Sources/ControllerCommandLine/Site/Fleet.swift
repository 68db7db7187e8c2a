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
        let session = try self.session()
        if let node = retire {
            let prefix = try connection.checkedPrefix()
            let retirement = Guarded(try FleetRetirement(App.self, node: node, prefix: prefix, discoveryPrefix: discoveryPrefix))
            let cleared = try refusal { () throws(FleetFailure) in try session.retire(retirement) }
            print("retired '\(retirement.withLock { $0.node }.shown)': cleared \(cleared.joined(separator: ", "))".shownLine)
            return
        }
        let view = Guarded(FleetView(prefix: try connection.checkedPrefix()))
        let changed = Doorbell()
        let client = try refusal { () throws(FleetFailure) in
            try session.subscribed(
                filters: view.withLock { $0.filters }, changed: changed,
                take: { event in view.withLock { $0.take(event) } },
                state: { view.withLock { ($0.subscribed, $0.lastFailure) } })
        }
        defer { client.stop() }
        session.settle(changed)
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
        let session = try self.session()
        let view = Guarded(FleetView(prefix: try connection.checkedPrefix()))
        let client: any SiteTransport
        do throws(MQTTError) {
            client = try session.connect(session.configuration) { event in view.withLock { $0.take(event) } }
            for filter in view.withLock({ $0.filters }) { _ = try client.subscribe(filter, qos: .atLeastOnce) }
            try client.start()
        } catch {
            throw refused(.client(error))
        }
        defer { client.stop() }
        var logger = Logger(label: "\(App.daemonName).fleet", factory: PlainLogHandler.factory(journal: false))
        logger.logLevel = .notice
        let broker = session.configuration.broker
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

    /// fleet's session on libmosquitto's client: a clean session that takes at most
    /// ``FleetLimits/maxPayloadBytes`` of any message (the rest stays in libmosquitto's buffer;
    /// ``FleetView`` says it was not read).
    func session() throws -> FleetSession {
        let broker = try connection.broker(connection.url!)
        var configuration = try connection.configuration(broker: broker, clientID: "fleet-\(getpid())", cleanSession: true, will: nil)
        configuration.maxReceivedPayloadBytes = FleetLimits.maxPayloadBytes
        return FleetSession(configuration: configuration, connect: MQTTClient.connector, settleTime: .milliseconds(Int64(wait * 1_000)))
    }

    /// `body`'s failure said on standard error, and the status it exits with: 5 for a library
    /// that is not installed, else 1.
    private func refusal<Value>(_ body: () throws(FleetFailure) -> Value) throws(ControllerExit) -> Value {
        do {
            return try body()
        } catch {
            throw refused(error)
        }
    }

    private func refused(_ failure: FleetFailure) -> ControllerExit {
        Terminal.error("fleet: \(failure)")
        if case .client(let error) = failure { return ControllerExit.of(error, otherwise: .refused) }
        return .refused
    }

    private func render(_ view: FleetView) -> String {
        let now = FleetView.unixNow()
        return json ? view.json(now: now) : view.table(now: now)
    }
}
