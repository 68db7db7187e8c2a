import ControllerDaemon
import ControllerHTTP
import Logging
import ServiceLifecycle
import Testing

// The examples in ControllerHTTP's doc comments, line for line (DocumentationExamplesTests finds
// every example's lines here, in order). These are compiled, not run: each serves on the
// documented port until the process is stopped, which a test must not; the servers' behaviour is
// StatusServerTests' and SitePageTests', on ports of their own.

/// StatusServer's and StateDiagram's examples: a daemon's status server in its service group.
enum StatusServerDocExample {
    typealias Door = Pump
    typealias MyMachine = Pump

    static func serve(daemon: StatusHub<Door>, daemonService: any Service, logger: Logger) async throws {
        let metrics = ControllerMetrics<Door>()
        let http = StatusServer(host: "127.0.0.1", port: 9180, metrics: metrics) { daemon.snapshot() }
        let group = ServiceGroup(configuration: .init(services: [daemonService, http], logger: logger))
        try await group.run()
    }

    static func diagram(daemon: StatusHub<Door>, metrics: ControllerMetrics<Door>) -> StatusServer {
        let server = StatusServer(diagram: StateDiagram(MyMachine.table), metrics: metrics) { daemon.snapshot() }
        return server
    }
}

/// SiteServer's example: the site page until SIGTERM or SIGINT.
enum SiteServerDocExample {
    struct Watcher: Sendable {
        let current: SiteOverview
        func overview() -> SiteOverview { current }
    }

    static func serve(watcher: Watcher, logger: Logger) async throws {
        let server = SiteServer(host: "127.0.0.1", port: 9190, title: "turnstiled fleet", logger: logger) { watcher.overview() }
        let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

@Suite("The doc comments' examples make the servers they say")
struct HTTPDocCommentExamplesTests {
    @Test("the diagram example's server draws the machine it is given, on the default port")
    func diagramServer() {
        let server = StatusServerDocExample.diagram(daemon: StatusHub<Pump>(board: "bench", chip: "sim", inbox: nil), metrics: ControllerMetrics<Pump>())
        #expect(server.port == StatusServer.defaultPort && server.host == StatusServer.defaultHost)
    }
}
