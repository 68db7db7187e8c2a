import ControllerTestSupport
import Foundation
import Testing
import ControllerFSM
@testable import ControllerHTTP

/// The site page in headless Chromium: its script redraws it from `/site.json` without a
/// reload. The page is served with one overview and `/site.json` answers another, so the rows
/// Chromium shows can only be the script's. Skipped where no Chromium is installed, required
/// under scripts/test.sh (CONTROLLER_REQUIRE_BROWSER=1; its core packages bring it).
@Suite("The site page in a browser")
struct SitePageBrowserTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let required = ProcessInfo.processInfo.environment["CONTROLLER_REQUIRE_BROWSER"] == "1"

    @Test("the script replaces the served rows with /site.json's: a node gone online, another node, new sums", .enabled(if: chromium != nil || required))
    func redrawsWithoutReload() async throws {
        let chromium = try #require(Self.chromium, "no Chromium: apt-get install chromium (scripts/lib/packages.sh core)")
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
            try Self.dumpDOM(chromium, url: "http://127.0.0.1:\(port)/")
        }
        #expect(page.contains(#"data-live="yes""#), "the script never got an answer: \(page)")
        #expect(page.contains(#"<tr data-node="north" data-available="online" data-problems="yes"><td>north</td><td>turnstile</td><td>online since 2026-11-29T06:00:00.000Z</td><td>unlocked</td><td>never</td><td>3</td><td>1 input edge(s) lost before they were read</td><td>coins 2</td></tr>"#), "\(page)")
        #expect(page.contains(#"<tr data-node="south""#), "\(page)")
        #expect(page.contains("2 controllers, 2 online"))
        #expect(page.contains("<tr><td>turnstile (2)</td><td>coins 7</td></tr>"), "\(page)")
        #expect(!page.contains("<td>offline"), "the served row is gone: \(page)")
    }

    /// The DOM after the page's script has had three seconds of (virtual) time.
    static func dumpDOM(_ chromium: String, url: String) throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("site-page-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)", "--virtual-time-budget=3000", "--dump-dom", url,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readToEndRetryingInterrupts()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
