/// The site page `/` of `fleet --http`: every controller on the broker in one table (online or
/// not and since when, application, state, last event, outbox backlog, problems, totals) and
/// each application's sums, as one self-contained HTML document (inline CSS and script, nothing
/// fetched but `/site.json`).
///
/// The server fills in the overview of the moment, so the page says something with scripting
/// off; the script then polls `/site.json` every ``pollMilliseconds`` and redraws in place. Every
/// name a node sent is text, never markup: escaped here, `textContent` in the script. Once a
/// poll has answered, `<body data-live="yes">` tells a headless browser the script ran.
struct SitePage: Sendable {
    /// Once a second: a site's overview is for a person watching many controllers, and the
    /// overview of a few hundred nodes is a few tens of kilobytes.
    static let pollMilliseconds = 1_000
    static let columns = ["node", "app", "available", "state", "last event", "outbox", "problems", "totals"]

    /// What the heading calls the tool serving it (`turnstiled fleet`).
    let title: String

    func html(_ overview: SiteOverview) -> String {
        let escape = StatusPage.escape
        let header = Self.columns.map { "<th>\(escape($0))</th>" }.joined()
        let rows = overview.controllers.map { controller in
            "<tr data-node=\"\(escape(controller.node))\" data-available=\"\(escape(controller.availability ?? ""))\" data-problems=\"\(controller.problems.isEmpty ? "no" : "yes")\">"
                + Self.cells(controller).map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n"
        }.joined()
        return #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\#(escape(title)) · \#(escape(Self.summary(overview)))</title>
        <style>\#(StatusPage.css)\#(Self.css)</style>
        </head>
        <body data-live="no">
        <header>
          <div><h1>\#(escape(title))</h1><div class="sub"><span id="prefix">\#(escape(overview.prefix.map { $0 + "/" } ?? ""))</span></div></div>
          <div class="right"><span id="summary" class="phase">\#(escape(Self.summary(overview)))</span><span id="live" class="live">connecting…</span></div>
        </header>
        <main class="site">
          <section class="card wide"><h2>controllers</h2>
            <table id="nodes"><thead><tr>\#(header)</tr></thead><tbody>
        \#(rows)</tbody></table>
            <div id="empty" class="since">\#(overview.controllers.isEmpty ? "no controller has published on this broker yet" : "")</div>
            <div id="broker" class="since">\#(escape(Self.brokerLine(overview)))</div>
          </section>
          <section class="card wide"><h2>site sums</h2><table id="sums">\#(Self.sumRows(overview).map { "<tr><td>\(escape($0.0))</td><td>\(escape($0.1))</td></tr>" }.joined())</table></section>
        </main>
        <script>\#(Self.script)</script>
        </body>
        </html>
        """#
    }

    /// A controller's row, in ``columns``' order, as the script writes it too.
    static func cells(_ controller: SiteOverview.Controller) -> [String] {
        [
            controller.node, controller.app ?? "?",
            (controller.availability ?? "?") + (controller.availabilitySince.map { " since " + $0 } ?? ""),
            (controller.state ?? "?") + (controller.phase.map { $0 == "running" ? "" : " (" + $0 + ")" } ?? ""),
            controller.lastEventAgeSeconds.map { SiteOverview.age(seconds: Int64($0)) } ?? "never",
            controller.outbox.map(String.init) ?? "?",
            Self.problemsCell(controller),
            SiteOverview.counts(controller.totals),
        ]
    }

    /// What the watcher says of the node's messages (a level that is no node id, a value cut),
    /// then the node's problems; `none` when neither, as the script writes it too. The notes
    /// first: the cell is cut at a line's bound, and they say what else was.
    static func problemsCell(_ controller: SiteOverview.Controller) -> String {
        let said = (controller.notes ?? []) + controller.problems
        return said.isEmpty ? "none" : said.joined(separator: "; ")
    }

    /// `3 controllers, 2 online`.
    static func summary(_ overview: SiteOverview) -> String {
        "\(overview.controllers.count) controller\(overview.controllers.count == 1 ? "" : "s"), \(overview.online) online"
    }

    /// Each application's sums: (`turnstile (2)`, `coins 12, passages 11`).
    static func sumRows(_ overview: SiteOverview) -> [(String, String)] {
        overview.sums.sorted { $0.key < $1.key }.map { app, totals in ("\(app) (\(overview.count(of: app)))", SiteOverview.counts(totals)) }
    }

    /// Whether the watcher has the broker now, and what it left out.
    static func brokerLine(_ overview: SiteOverview) -> String {
        var parts: [String] = []
        if overview.connected == false { parts.append("not subscribed on the broker: " + (overview.brokerProblem ?? "no answer yet")) }
        if let notShown = overview.notShown, notShown > 0 { parts.append("\(notShown) message(s) of nodes past the page's bound were not shown") }
        if let notListed = overview.notListed, notListed > 0 {
            parts.append("\(notListed) message(s) under node levels too long for a node's topics were not shown")
        }
        return parts.joined(separator: "; ")
    }

    static let css = PageTemplate.text(PackageResources.site_page_css)

    /// Pages/site-page.js, then the polling loop.
    static let script = PageTemplate.text(PackageResources.site_page_js) + "\n"
        + PagePolling.loop(path: "/site.json", everyMilliseconds: pollMilliseconds, source: "fleet")
}
