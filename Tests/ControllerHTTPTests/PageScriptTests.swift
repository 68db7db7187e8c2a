import ControllerTestSupport
import Foundation
import Testing
import ControllerDaemon
import Turnstile
@testable import ControllerHTTP

/// The pages' scripts (Pages/*.js, with each page's holes filled) through a real JavaScript
/// engine: each page as served, opened from a file in headless Chromium with a collector of
/// errors put before its script. A syntax error anywhere in a script, or an error its first run
/// throws, is reported with its line; and the script must have got as far as its first poll
/// (which, from a file, has no server to answer: its `#live` then says so). The tests elsewhere
/// compare the page's text, which a script that does not parse would pass.
@Suite("The pages' scripts in a JavaScript engine", .enabled(if: HeadlessChromium.enabled), .serialized)
struct PageScriptTests {
    /// Before the page's own scripts: each error and unhandled rejection, as text on `<html>`.
    static let collector = """
        <script>
        const said = (text) => { const root = document.documentElement; root.dataset.scriptErrors = (root.dataset.scriptErrors || "") + text + "\\n"; };
        addEventListener("error", (e) => said(e.message + " (line " + e.lineno + " of the page, column " + e.colno + ")"));
        addEventListener("unhandledrejection", (e) => said("unhandled rejection: " + e.reason));
        </script>
        """

    static let pump = DiagramLayout(StateDiagram(Pump.table))

    static let pages: [(name: String, html: String, source: String)] = [
        ("the turnstile's status page (nested)",
         StatusPage(TurnstileApplication.self, diagram: DiagramLayout(StateDiagram(TurnstileApplication.table))).html(TurnstileEndpointsUnchangedTests.snapshot),
         "the daemon"),
        // A flat machine's page leaves the nested lines out; gauges named as no identifier is.
        ("a flat status page with odd gauges",
         StatusPage(daemonName: "pumpd </script>", gauges: ["pressure", "odd \"name\"", "state", "x\u{2028}y"], diagram: pump).html(fixedSnapshot()),
         "the daemon"),
        ("the site page", SitePage(title: "fleet").html(SitePageTests.overview), "fleet"),
    ]

    @Test("each script parses and runs to its first poll", arguments: pages.indices)
    func runs(page: Int) async throws {
        let (name, html, source) = Self.pages[page]
        let chromium = try #require(HeadlessChromium.path, HeadlessChromium.missing)
        let dom = try await Self.run(html, in: chromium)
        let errors = Self.errors(in: dom)
        #expect(errors.isEmpty, "\(name)")
        // The script's source says this too: the element's text, as only the script writes it.
        let polled = dom.contains(#"<span id="live" class="live bad">no answer from \#(source) ("#)
        #expect(polled, "\(name): the script did not reach its first poll: \(dom)")
    }

    /// The DOM of `html` once its scripts have run, from a file of its own.
    static func run(_ html: String, in chromium: String) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("page-script-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: file) }
        let head = try #require(html.range(of: "<head>"), "the page has no <head>")
        try (html[..<head.upperBound] + "\n" + collector + html[head.upperBound...]).write(to: file, atomically: true, encoding: .utf8)
        return try await HeadlessChromium.dumpDOM(chromium, url: file.absoluteString, milliseconds: 1_000)
    }

    /// What the collector wrote on `<html>`, an error a line.
    static func errors(in dom: String) -> [String] {
        guard let start = dom.range(of: "data-script-errors=\"") else { return [] }
        return dom[start.upperBound...].prefix { $0 != "\"" }.split(separator: "\n").map(String.init)
    }
}
