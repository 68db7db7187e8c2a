import ControllerTestSupport
import Foundation
import Testing
import ControllerFSM
@testable import ControllerHTTP

/// The site page in headless Chromium: its script redraws it from `/site.json` without a
/// reload. The page is served with one overview and `/site.json` answers another, so the rows
/// Chromium shows can only be the script's. Skipped where no Chromium is installed, required
/// under scripts/test.sh (``HeadlessChromium``).
@Suite("The site page in a browser")
struct SitePageBrowserTests {

    @Test("the script replaces the served rows with /site.json's: a node gone online, another node, new sums", .enabled(if: HeadlessChromium.enabled))
    func redrawsWithoutReload() async throws {
        let chromium = try #require(HeadlessChromium.path, HeadlessChromium.missing)
        let served = SiteOverview(
            controllers: [.init(node: "north", app: "turnstile", availability: "offline", state: "locked", totals: ["coins": 1])],
            online: 0, sums: ["turnstile": ["coins": 1]], prefix: "site", connected: true)
        let later = SiteOverview(
            controllers: [
                .init(node: "north", app: "turnstile", availability: "online", availabilitySince: "2026-11-29T06:00:00.000Z", phase: "running",
                      state: "unlocked", totals: ["coins": 2], outbox: 3, problems: ["1 input edge(s) lost before they were read"]),
                .init(node: "south", app: "turnstile", availability: "online", state: "locked", totals: ["coins": 5], outbox: 0),
            ],
            online: 2, sums: ["turnstile": ["coins": 7]], prefix: "site", connected: true)
        // The page's first request gets `served`; every later one (the script's polls) `later`.
        let requests = Guarded(0)
        let page = try await withSitePage(overview: { requests.withLock { $0 += 1; return $0 == 1 ? served : later } }) { port in
            try await HeadlessChromium.dumpDOM(chromium, url: "http://127.0.0.1:\(port)/")
        }
        #expect(page.contains(#"data-live="yes""#), "the script never got an answer: \(page)")
        #expect(page.contains(#"<tr data-node="north" data-available="online" data-problems="yes"><td>north</td><td>turnstile</td><td>online since 2026-11-29T06:00:00.000Z</td><td>unlocked</td><td>never</td><td>3</td><td>1 input edge(s) lost before they were read</td><td>coins 2</td></tr>"#), "\(page)")
        #expect(page.contains(#"<tr data-node="south""#), "\(page)")
        #expect(page.contains("2 controllers, 2 online"))
        #expect(page.contains("<tr><td>turnstile (2)</td><td>coins 7</td></tr>"), "\(page)")
        #expect(!page.contains("<td>offline"), "the served row is gone: \(page)")
    }
}
