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

    static let css = """
    main.site{grid-template-columns:1fr;max-width:1400px}
    #nodes td{font-size:13px;vertical-align:top}
    #nodes tr[data-available=offline] td{color:#94a3b8}
    #nodes tr[data-problems=yes] td:nth-child(7){color:#b91c1c;font-weight:600}
    #sums td:first-child{font-weight:600;width:220px}
    """

    static let script = """
    "use strict";
    const $ = (id) => document.getElementById(id);
    function age(s) {
      s = Math.max(0, Math.floor(s));
      return s < 120 ? s + " s ago" : s < 7200 ? Math.floor(s / 60) + " min ago" : s < 172800 ? Math.floor(s / 3600) + " h ago" : Math.floor(s / 86400) + " d ago";
    }
    function counts(totals) {
      const shown = Object.keys(totals || {}).filter((k) => totals[k] !== 0).sort().map((k) => k + " " + totals[k]);
      return shown.length ? shown.join(", ") : "nothing counted";
    }
    function cells(c) {
      return [c.node, c.app ?? "?", (c.availability ?? "?") + (c.availabilitySince ? " since " + c.availabilitySince : ""),
        (c.state ?? "?") + (c.phase && c.phase !== "running" ? " (" + c.phase + ")" : ""),
        c.lastEventAgeSeconds == null ? "never" : age(c.lastEventAgeSeconds), c.outbox == null ? "?" : String(c.outbox),
        problemsCell(c), counts(c.totals)];
    }
    function problemsCell(c) {
      const said = (c.notes || []).concat(c.problems || []);
      return said.length ? said.join("; ") : "none";
    }
    function row(values) {
      const tr = document.createElement("tr");
      for (const v of values) { const td = document.createElement("td"); td.textContent = v; tr.append(td); }
      return tr;
    }
    function render(o) {
      const summary = o.controllers.length + (o.controllers.length === 1 ? " controller, " : " controllers, ") + o.online + " online";
      $("summary").textContent = summary;
      document.title = document.title.split(" · ")[0] + " · " + summary;
      $("nodes").tBodies[0].replaceChildren(...o.controllers.map((c) => {
        const tr = row(cells(c));
        tr.dataset.node = c.node;
        tr.dataset.available = c.availability ?? "";
        tr.dataset.problems = (c.problems || []).length ? "yes" : "no";
        return tr;
      }));
      $("empty").textContent = o.controllers.length ? "" : "no controller has published on this broker yet";
      const notes = [];
      if (o.connected === false) notes.push("not subscribed on the broker: " + (o.brokerProblem ?? "no answer yet"));
      if (o.notShown) notes.push(o.notShown + " message(s) of nodes past the page's bound were not shown");
      if (o.notListed) notes.push(o.notListed + " message(s) under node levels too long for a node's topics were not shown");
      $("broker").textContent = notes.join("; ");
      $("sums").replaceChildren(...Object.keys(o.sums).sort().map((app) =>
        row([app + " (" + o.controllers.filter((c) => (c.app ?? "?") === app).length + ")", counts(o.sums[app])])));
    }
    \(PagePolling.loop(path: "/site.json", everyMilliseconds: pollMilliseconds, source: "fleet"))
    """
}
