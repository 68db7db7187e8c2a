import ControllerFSM
import ControllerHost
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import ControllerDaemon

/// The daemon's HTTP face: `/metrics` (Prometheus), `/status` (JSON), `/healthz` and the live
/// status page `/`, served from the snapshots the daemon hands it. What it names — the page's
/// title, the metrics' namespace, the machine drawn, the gauges shown — comes from the
/// application's declaration, the `App` of its ``ControllerMetrics``.
///
/// A swift-service-lifecycle `Service`: put it in the daemon's `ServiceGroup` and it runs until
/// the group shuts down gracefully (it stops accepting connections and finishes the requests in
/// hand) or its task is cancelled.
///
/// ```swift
/// let metrics = ControllerMetrics<Door>()
/// let http = StatusServer(host: "127.0.0.1", port: 9180, metrics: metrics) { daemon.snapshot() }
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
    /// The `Server` header: the application's daemon (`turnstiled`).
    let serverName: String
    let limits: StatusServerLimits
    let logger: Logger
    let onListening: @Sendable (_ port: Int) async -> Void

    /// - Parameters:
    ///   - host: The address to listen on (an IPv4 or IPv6 literal or a host name).
    ///   - port: The TCP port; 0 for any free one (tests).
    ///   - diagram: What the page draws; `App`'s machine when nil (laid out once however many
    ///     servers are made).
    ///   - metrics: The metrics `/metrics` renders; the daemon feeds its latency histogram. Its
    ///     application is the one the page is about: its daemon's name is the title.
    ///   - limits: How many connections at once, and how long one may idle; see ``StatusServerLimits``.
    ///   - logger: Where the HTTP server logs (start, stop, failures).
    ///   - onListening: Called once the socket is bound, with the port it is bound to.
    ///   - snapshot: The daemon's current snapshot; called once per request, from any thread.
    public init<App: ControllerApplication>(
        host: String = StatusServer.defaultHost,
        port: Int = StatusServer.defaultPort,
        diagram: StateDiagram? = nil,
        metrics: ControllerMetrics<App>,
        limits: StatusServerLimits = .standard,
        logger: Logger = Logger(label: "\(App.daemonName).http"),
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in },
        snapshot: @escaping @Sendable () -> DaemonSnapshot
    ) {
        self.init(
            host: host, port: port, layout: diagram.map(DiagramLayout.init) ?? DiagramLayouts.layout(of: App.self),
            metrics: metrics, limits: limits, logger: logger, onListening: onListening, snapshot: snapshot)
    }

    /// With the diagram laid out already.
    init<App: ControllerApplication>(
        host: String, port: Int, layout: DiagramLayout, metrics: ControllerMetrics<App>, limits: StatusServerLimits,
        logger: Logger, onListening: @escaping @Sendable (_ port: Int) async -> Void,
        snapshot: @escaping @Sendable () -> DaemonSnapshot
    ) {
        self.host = host
        self.port = port
        self.routes = StatusRoutes(
            metrics: { metrics.render($0) }, page: StatusPage(App.self, diagram: layout), snapshot: snapshot)
        self.serverName = App.daemonName
        self.limits = limits
        self.logger = logger
        self.onListening = onListening
    }

    /// Serves until the service group shuts down gracefully or the task is cancelled.
    ///
    /// - Throws: ``StatusServerError/cannotListen(host:port:reason:)`` when the address cannot
    ///   be bound (in use, not an address of this machine, a port below 1024 without privilege).
    public func run() async throws {
        try await run(onListening: { _ in })
    }

    /// The same, telling `alsoOnListening` too once the socket is bound.
    func run(onListening alsoOnListening: @escaping @Sendable (_ port: Int) async -> Void) async throws {
        let listening = Guarded(false)
        let host = host, port = port, logger = logger, onListening = onListening
        let application = makeServer { boundPort in
            listening.withLock { $0 = true }
            logger.info("status page and metrics on http://\(hostPort(host, boundPort))/")
            await onListening(boundPort)
            await alsoOnListening(boundPort)
        }
        do {
            try await application.run()
        } catch {
            guard !listening.withLock({ $0 }) else { throw error }
            throw StatusServerError.cannotListen(host: host, port: port, reason: "\(error)")
        }
    }

    /// The server behind ``run()``.
    func makeServer(
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) -> ReadOnlyHTTPServer {
        ReadOnlyHTTPServer(
            router: routes.makeRouter(), host: host, port: port, serverName: serverName, limits: limits, logger: logger,
            onListening: onListening)
    }
}

/// The one way both read-only servers (a daemon's status, a site's page) serve `router` on
/// `host:port` within `limits`: Hummingbird's HTTP/1.1 server, run without Hummingbird's
/// `Application`. That one also runs a task that makes the `Date` header's text anew every
/// second for as long as it serves — on an idle daemon a wake-up a second of libdispatch's
/// pool, with five or six context switches each — where this one makes the text when a
/// response asks (``HTTPDate``). What a response carries is the same: the route's answer (500
/// for an error a route throws), `Date`, and `Server: serverName`.
struct ReadOnlyHTTPServer: Service {
    let responder: RouterResponder<BasicRequestContext>
    let host: String
    let port: Int
    let serverName: String
    let limits: StatusServerLimits
    let logger: Logger
    let onListening: @Sendable (_ port: Int) async -> Void

    /// A response that could not be written: the connection is closed. Not the write's own
    /// error, which may be the parser's: the connection's handler would then answer 400 after
    /// the response had begun.
    struct ResponseNotWritten: Error {
        let underlying: any Error
    }

    init(
        router: Router<BasicRequestContext>, host: String, port: Int, serverName: String, limits: StatusServerLimits, logger: Logger,
        onListening: @escaping @Sendable (_ port: Int) async -> Void
    ) {
        responder = router.buildResponder()
        self.host = host
        self.port = port
        self.serverName = serverName
        self.limits = limits
        self.logger = logger
        self.onListening = onListening
    }

    func run() async throws {
        let responder = responder
        let dates = HTTPDate()
        let serverName = serverName, logger = logger, onListening = onListening
        let server = try HTTPServerBuilder.http1(configuration: .init(idleTimeout: .nanoseconds(limits.idleTimeout.nanosecondCount)))
            .buildServer(
                configuration: ServerConfiguration(
                    address: .hostname(host, port: port), serverName: serverName, backlog: limits.backlog,
                    availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections, logger: logger)),
                eventLoopGroup: EventLoopGroupProvider.singleton.eventLoopGroup,
                logger: logger,
                responder: { request, writer, channel in
                    let context = BasicRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
                    var response: Response
                    do {
                        response = try await responder.respond(to: request, context: context)
                    } catch {
                        // The router answers its own errors (404, 405); these routes read no
                        // body, so no parser error comes from them either.
                        logger.debug("a route failed: \(error)")
                        response = Response(status: .internalServerError, body: .init())
                    }
                    response.headers[.date] = dates.now()
                    response.headers[.server] = serverName
                    do {
                        try await writer.write(response: response.head, body: response.body)
                    } catch {
                        throw ResponseNotWritten(underlying: error)
                    }
                },
                onServerRunning: { channel in
                    await onListening(channel.localAddress?.port ?? 0)
                })
        try await server.run()
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
