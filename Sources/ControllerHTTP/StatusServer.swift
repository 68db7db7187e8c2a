import ControllerFSM
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import ControllerDaemon

/// The daemon's HTTP face: `/metrics` (Prometheus), `/status` (JSON), `/healthz` and the live
/// status page `/`, served from the snapshots the daemon hands it.
///
/// A swift-service-lifecycle `Service`: put it in the daemon's `ServiceGroup` and it runs until
/// the group shuts down gracefully (it stops accepting connections and finishes the requests in
/// hand) or its task is cancelled.
///
/// ```swift
/// let metrics = TurnstileMetrics()
/// let http = StatusServer(
///     host: "127.0.0.1", port: 9180, diagram: StateDiagram(MyMachine.table), metrics: metrics
/// ) { daemon.snapshot() }
/// let group = ServiceGroup(configuration: .init(services: [daemonService, http], logger: logger))
/// try await group.run()
/// ```
public struct StatusServer: Service {
    /// Loopback only by default: the status page and metrics tell who paid what, and nothing
    /// on the network should see them unless the integrator says so.
    public static let defaultHost = "127.0.0.1"
    /// Next to node_exporter's 9100 in the range Prometheus exporters customarily take.
    public static let defaultPort = 9180

    public let host: String
    /// The port asked for; 0 lets the kernel choose, and `onListening` tells which it chose.
    public let port: Int
    let routes: StatusRoutes
    let limits: StatusServerLimits
    let logger: Logger
    let onListening: @Sendable (_ port: Int) async -> Void

    /// - Parameters:
    ///   - host: The address to listen on (an IPv4 or IPv6 literal or a host name).
    ///   - port: The TCP port; 0 for any free one (tests).
    ///   - diagram: The machine the page draws: `StateDiagram(table)` of the table the daemon runs.
    ///   - metrics: The metrics `/metrics` renders; the daemon feeds its latency histogram.
    ///   - limits: How many connections at once, and how long one may idle; see ``StatusServerLimits``.
    ///   - logger: Where the HTTP server logs (start, stop, failures).
    ///   - onListening: Called once the socket is bound, with the port it is bound to.
    ///   - snapshot: The daemon's current snapshot; called once per request, from any thread.
    public init(
        host: String = StatusServer.defaultHost,
        port: Int = StatusServer.defaultPort,
        diagram: StateDiagram,
        metrics: TurnstileMetrics,
        limits: StatusServerLimits = .standard,
        logger: Logger = Logger(label: "turnstiled.http"),
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in },
        snapshot: @escaping @Sendable () -> DaemonSnapshot
    ) {
        self.init(
            host: host, port: port, layout: DiagramLayout(diagram), metrics: metrics, limits: limits, logger: logger,
            onListening: onListening, snapshot: snapshot)
    }

    /// With the diagram laid out already.
    init(
        host: String, port: Int, layout: DiagramLayout, metrics: TurnstileMetrics, limits: StatusServerLimits,
        logger: Logger, onListening: @escaping @Sendable (_ port: Int) async -> Void,
        snapshot: @escaping @Sendable () -> DaemonSnapshot
    ) {
        self.host = host
        self.port = port
        self.routes = StatusRoutes(metrics: metrics, diagram: layout, snapshot: snapshot)
        self.limits = limits
        self.logger = logger
        self.onListening = onListening
    }

    /// Serves until the service group shuts down gracefully or the task is cancelled.
    ///
    /// - Throws: ``StatusServerError/cannotListen(host:port:reason:)`` when the address cannot
    ///   be bound (in use, not an address of this machine, a port below 1024 without privilege).
    public func run() async throws {
        let listening = Guarded(false)
        let host = host, port = port, logger = logger, onListening = onListening
        let application = makeApplication { boundPort in
            listening.withLock { $0 = true }
            logger.info("status page and metrics on http://\(hostPort(host, boundPort))/")
            await onListening(boundPort)
        }
        do {
            try await application.run()
        } catch {
            guard !listening.withLock({ $0 }) else { throw error }
            throw StatusServerError.cannotListen(host: host, port: port, reason: "\(error)")
        }
    }

    /// The Hummingbird application behind ``run()``; tests drive it with HummingbirdTesting.
    func makeApplication(
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: routes.makeRouter(),
            server: .http1(configuration: .init(idleTimeout: .nanoseconds(limits.idleTimeout.nanosecondCount))),
            configuration: .init(
                address: .hostname(host, port: port), serverName: "turnstiled", backlog: limits.backlog,
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections, logger: logger)),
            onServerRunning: { channel in
                await onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
    }
}

/// Why the status server could not serve.
public enum StatusServerError: Error, CustomStringConvertible {
    /// Binding the listening socket failed.
    case cannotListen(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case let .cannotListen(host, port, reason):
            "cannot serve the status page and metrics on \(hostPort(host, port)): \(reason). Choose another "
                + "address or port (--http ADDRESS:PORT), stop whatever holds that port, or run "
                + "without the endpoint (--no-http)."
        }
    }
}
