#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControllerFSM
import ControllerHost
import Hummingbird
import Logging
import ServiceLifecycle

/// The site page's HTTP face (`fleet --http`): the live page `/`, the overview as JSON
/// `/site.json` (what `fleet --json` prints) and `/healthz`, served from the overview the
/// watcher hands it. Read-only, within the same ``StatusServerLimits`` as a daemon's status
/// server.
///
/// ```swift
/// let server = SiteServer(host: "127.0.0.1", port: 9190, title: "turnstiled fleet", logger: logger) { watcher.overview() }
/// let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
public struct SiteServer: Service {
    /// Beside the daemons' 9180: a site page and a daemon may share a machine.
    public static let defaultPort = 9190
    /// Every path served; another method on one of them is 405, any other path 404.
    static let paths: Set<String> = ["/", "/site.json", "/healthz"]

    public let host: String
    public let port: Int
    let page: SitePage
    let limits: StatusServerLimits
    let logger: Logger
    let onListening: @Sendable (_ port: Int) async -> Void
    let overview: @Sendable () -> SiteOverview

    /// - Parameters:
    ///   - host: The address to listen on; loopback unless the operator says otherwise.
    ///   - port: The TCP port; 0 for any free one (`onListening` says which).
    ///   - title: The page's heading (`turnstiled fleet`).
    ///   - overview: The site now; called once per request, from any thread.
    public init(
        host: String = StatusServer.defaultHost, port: Int = SiteServer.defaultPort, title: String,
        limits: StatusServerLimits = .standard, logger: Logger,
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in },
        overview: @escaping @Sendable () -> SiteOverview
    ) {
        self.host = host
        self.port = port
        self.page = SitePage(title: title)
        self.limits = limits
        self.logger = logger
        self.onListening = onListening
        self.overview = overview
    }

    /// Serves until the service group shuts down gracefully or the task is cancelled.
    ///
    /// - Throws: ``StatusServerError/cannotListen(host:port:reason:)`` when the address cannot be
    ///   bound.
    public func run() async throws {
        let listening = Guarded(false)
        let host = host, port = port, logger = logger, onListening = onListening
        let application = ReadOnlyHTTPServer(
            router: makeRouter(), host: host, port: port, serverName: page.title, limits: limits, logger: logger
        ) { boundPort in
            listening.withLock { $0 = true }
            logger.info("site page on http://\(hostPort(host, boundPort))/")
            await onListening(boundPort)
        }
        do {
            try await application.run()
        } catch {
            guard !listening.withLock({ $0 }) else { throw error }
            throw StatusServerError.cannotListen(host: host, port: port, reason: "\(error)")
        }
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        let overview = overview, page = page
        router.add(middleware: OnlyGet(paths: Self.paths))
        router.get("/site.json") { _, _ in
            StatusRoutes.response(.ok, "application/json", Self.json(overview()))
        }
        router.get("/healthz") { _, _ in
            let now = overview()
            return now.connected == false
                ? StatusRoutes.response(.serviceUnavailable, "text/plain; charset=utf-8", Array("not subscribed on the broker: \(now.brokerProblem ?? "no answer yet")\n".utf8))
                : StatusRoutes.response(.ok, "text/plain; charset=utf-8", Array("ok\n".utf8))
        }
        router.get("/") { _, _ in
            StatusRoutes.response(.ok, "text/html; charset=utf-8", Array(page.html(overview()).utf8))
        }
        return router
    }

    /// The overview as `fleet --json` prints it: keys sorted, no invisible character raw.
    public static func json(_ overview: SiteOverview) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, integers, booleans and finite ages always encode.
        let bytes = (try? encoder.encode(overview)).map { Array($0) } ?? Array("{}".utf8)
        return Array(JSONText.escapingInvisibles(String(decoding: bytes, as: UTF8.self)).utf8)
    }
}
