import Foundation
import Hummingbird
import ServiceLifecycle
import Testing
import ControllerFSM
@testable import ControllerHTTP

/// The site page of `fleet --http`, served from an overview the test sets: what it answers on
/// each path, and that every word a node sent stays text.
@Suite struct SitePageTests {
    static let overview = SiteOverview(
        controllers: [
            .init(
                node: "gate-1", app: "barrier", availability: "online", availabilitySince: "2026-11-29T05:00:00.000Z", phase: "running",
                state: "closed", totals: ["vehicles": 4], outbox: 0, lastEvent: "2026-11-29T05:10:00.000Z", lastEventAgeSeconds: 42),
            .init(
                node: "<script>alert(1)</script>", app: "turnstile", availability: "offline", phase: "degraded", state: "broken",
                totals: ["coins": 7, "passages": 5], outbox: 12, problems: ["in broken", "degraded: the chip is gone"]),
            .init(node: "north", app: "turnstile", availability: "online", state: "locked", totals: ["coins": 3]),
        ],
        online: 2, sums: ["barrier": ["vehicles": 4], "turnstile": ["coins": 10, "passages": 5]], prefix: "site", connected: true)

    @Test("/site.json is the overview, keys sorted, as fleet --json prints it")
    func json() async throws {
        try await withSitePage(OverviewSource(Self.overview)) { client in
            let response = try await client.get("/site.json")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            #expect(response.headers[.cacheControl] == "no-store")
            let body = String(buffer: response.body)
            #expect(try JSONDecoder().decode(SiteOverview.self, from: Data(body.utf8)) == Self.overview)
            #expect(body == String(decoding: SiteServer.json(Self.overview), as: UTF8.self))
            let keys = ["\"controllers\"", "\"online\"", "\"prefix\"", "\"sums\""].map { body.range(of: $0)!.lowerBound }
            #expect(keys == keys.sorted(), "top-level keys in order: \(body)")
        }
    }

    @Test("the page lists every node with its words as text, the sums per application, and fetches /site.json alone")
    func page() async throws {
        try await withSitePage(OverviewSource(Self.overview)) { client in
            let response = try await client.get("/")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            let page = String(buffer: response.body)
            #expect(page.contains("<h1>test fleet</h1>"))
            #expect(page.contains("3 controllers, 2 online"))
            #expect(page.contains(#"<tr data-node="gate-1" data-available="online" data-problems="no"><td>gate-1</td><td>barrier</td><td>online since 2026-11-29T05:00:00.000Z</td><td>closed</td><td>42 s ago</td><td>0</td><td>none</td><td>vehicles 4</td></tr>"#))
            // A node's id, state and problems are text: the script tag a node called itself is
            // escaped, never run; its problems and outbox are on its row.
            #expect(!page.contains("<script>alert"))
            #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(page.contains("<td>broken (degraded)</td><td>never</td><td>12</td><td>in broken; degraded: the chip is gone</td><td>coins 7, passages 5</td>"))
            #expect(page.contains("<tr><td>turnstile (2)</td><td>coins 10, passages 5</td></tr>"))
            #expect(page.contains(#"fetch("/site.json""#))
            for external in ["http://", "https://", "src=", "<link"] {
                #expect(!page.contains(external))
            }
        }
    }

    @Test("an empty site says so, and a watcher the broker does not answer says why on the page and in /healthz")
    func emptyAndAway() async throws {
        let source = OverviewSource(SiteOverview(controllers: [], online: 0, sums: [:], prefix: "site", connected: true))
        try await withSitePage(source) { client in
            #expect(String(buffer: try await client.get("/").body).contains("no controller has published on this broker yet"))
            let healthy = try await client.get("/healthz")
            #expect(healthy.status == .ok)
            source.set(SiteOverview(controllers: [], online: 0, sums: [:], prefix: "site", connected: false, brokerProblem: "connection refused"))
            let away = try await client.get("/healthz")
            #expect(away.status == .serviceUnavailable)
            #expect(String(buffer: away.body) == "not subscribed on the broker: connection refused\n")
            #expect(String(buffer: try await client.get("/").body).contains("not subscribed on the broker: connection refused"))
        }
    }

    @Test("read-only: another method on a served path is 405, any other path 404")
    func readOnly() async throws {
        try await withSitePage(OverviewSource(Self.overview)) { client in
            try await client.execute(uri: "/site.json", method: .post) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET")
            }
            #expect(try await client.get("/status").status == .notFound)
        }
    }
}

/// The overview the page is served from, changed by the test.
final class OverviewSource: Sendable {
    private let overview: Guarded<SiteOverview>

    init(_ overview: SiteOverview) {
        self.overview = Guarded(overview)
    }

    func get() -> SiteOverview { overview.withLock { $0 } }
    func set(_ new: SiteOverview) { overview.withLock { $0 = new } }
}

/// Runs `test` against a site server on a free loopback port.
func withSitePage<Value>(_ source: OverviewSource, _ test: @Sendable (LoopbackClient) async throws -> Value) async throws -> Value {
    try await withSitePage(overview: { source.get() }) { port in try await test(LoopbackClient(port: port)) }
}

/// Runs `test` with the port of a site server serving `overview`, called once per request.
func withSitePage<Value>(
    overview: @escaping @Sendable () -> SiteOverview, _ test: @Sendable (Int) async throws -> Value
) async throws -> Value {
    let ports = PortBox()
    let server = SiteServer(port: 0, title: "test fleet", logger: quietLogger, onListening: { ports.continuation.yield($0) }, overview: overview)
    let group = ServiceGroup(configuration: .init(services: [server], logger: quietLogger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask(executorPreference: ServerExecutor()) { try await group.run() }
        defer { tasks.cancelAll() }
        let port = try #require(await ports.next(), "the site server did not start")
        let value = try await test(port)
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return value
    }
}
