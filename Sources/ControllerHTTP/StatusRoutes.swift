#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import ControllerDaemon

/// The four routes and what they answer, built from one snapshot per request.
struct StatusRoutes: Sendable {
    /// Every path served; another method on one of them is 405, any other path 404.
    static let paths: Set<String> = ["/", "/metrics", "/status", "/healthz"]
    /// The Prometheus text exposition format's media type; scrapers check the version.
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"
    /// The only phase in which the controller takes its inputs: anything else is unhealthy.
    static let healthyPhase = "running"

    /// `/metrics`' body for a snapshot (``ControllerMetrics/render(_:)``).
    let metrics: @Sendable (DaemonSnapshot) -> [UInt8]
    /// The page, with the machine's diagram laid out once.
    let page: StatusPage
    let snapshot: @Sendable () -> DaemonSnapshot

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: OnlyGet(paths: Self.paths))
        router.get("/metrics") { _, _ in
            Self.response(.ok, Self.metricsContentType, metrics(snapshot()))
        }
        router.get("/status") { _, _ in
            Self.response(.ok, "application/json", try Self.json(snapshot()))
        }
        router.get("/healthz") { _, _ in
            Self.health(snapshot())
        }
        router.get("/") { _, _ in
            Self.response(.ok, "text/html; charset=utf-8", Array(page.html(snapshot()).utf8))
        }
        return router
    }

    /// `/healthz`: what a load balancer or a fleet monitor acts on. 200 `ok` only while the
    /// daemon runs; 503 with the phase (and the reason when degraded) in every other phase, so
    /// a starting, draining or degraded controller is taken out of rotation.
    static func health(_ snapshot: DaemonSnapshot) -> Response {
        if snapshot.phase == healthyPhase {
            return response(.ok, "text/plain; charset=utf-8", Array("ok\n".utf8))
        }
        var text = "phase: \(snapshot.phase)"
        if let reason = snapshot.degradedReason {
            text += " (\(reason))"
        }
        return response(.serviceUnavailable, "text/plain; charset=utf-8", Array((text + "\n").utf8))
    }

    /// The snapshot as `/status` serves it: keys sorted so the output is stable for diffs.
    /// Throws only for a non-finite uptime, which the router answers with a 500.
    static func json(_ snapshot: DaemonSnapshot) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(snapshot))
    }

    static func response(_ status: HTTPResponse.Status, _ contentType: String, _ body: [UInt8]) -> Response {
        Response(
            status: status,
            headers: [.contentType: contentType, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}

/// Answers 405 to any method but GET on a served path; everything here is read-only.
struct OnlyGet: RouterMiddleware {
    typealias Context = BasicRequestContext
    /// The paths served; any other is left to the router (404).
    let paths: Set<String>

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method != .get, paths.contains(request.uri.path) else {
            return try await next(request, context)
        }
        return Response(
            status: .methodNotAllowed,
            headers: [.allow: "GET", .contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "only GET is served here\n"))
        )
    }
}
