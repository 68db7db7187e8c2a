import ControllerDaemon
import ControllerHost

/// The status page `/`: one self-contained HTML document (inline CSS, script and SVG, nothing
/// fetched but `/status`), usable on a phone next to the controller or a laptop on the site LAN.
/// Its title is the application's daemon, its diagram the application's machine, and each of
/// its gauges is shown beside the uptime.
///
/// The server fills in the snapshot of the moment, so the page says something even with
/// scripting off; the script then polls `/status` every ``pollMilliseconds`` and redraws in
/// place. Once a poll has answered, `<body data-live="yes">` tells a headless browser the
/// script ran.
struct StatusPage: Sendable {
    /// Twice a second: a coin or a passage shows up while the person is still at the turnstile,
    /// and a JSON snapshot of a few hundred bytes costs the daemon nothing at that rate.
    static let pollMilliseconds = 500
    /// How many transitions the page lists; the snapshot may carry more.
    static let shownTransitions = 12
    /// The ids the page's own elements take; a gauge of the same name gets its id prefixed.
    static let pageIDs: Set<String> = [
        "board", "chip", "phase", "live", "state", "uptime", "events", "since", "diagram", "arrow", "counters",
        "health", "transitions", "outputs",
    ]

    /// What the title and heading call the daemon (`turnstiled`).
    let daemonName: String
    /// Each gauge's name and the id of the element that shows it, in declaration order.
    let gauges: [(name: String, id: String)]
    /// The machine's diagram, laid out once.
    let diagram: DiagramLayout
    /// The script, made once with the daemon's name and the gauges.
    let script: String
    /// Whether the machine has superstates: the page then shows the state with those around it
    /// (`bright in on`). A flat machine's page is as it always was.
    let nested: Bool

    init(daemonName: String, gauges: [String], diagram: DiagramLayout, nested: Bool = false) {
        self.daemonName = daemonName
        self.gauges = gauges.map { ($0, Self.pageIDs.contains($0) ? "gauge-" + $0 : $0) }
        self.diagram = diagram
        self.nested = nested
        script = Self.script(daemonName: daemonName, gauges: self.gauges, nested: nested)
    }

    /// `App`'s page: its daemon's name and its gauges.
    init<App: ControllerApplication>(_: App.Type, diagram: DiagramLayout) {
        self.init(daemonName: App.daemonName, gauges: App.gauges.map(\.name), diagram: diagram, nested: App.table.isNested)
    }

    func html(_ snapshot: DaemonSnapshot) -> String {
        let phase = snapshot.phase + (snapshot.degradedReason.map { " — \($0)" } ?? "")
        let gaugeFacts = gauges.map { gauge in
            #"      <div><div class="label">\#(Self.escape(gauge.name))</div><div id="\#(Self.escape(gauge.id))" class="big">\#(snapshot.gauges[gauge.name] ?? 0)</div></div>"#
                + "\n"
        }.joined()
        let escape = Self.escape, lastTransition = Self.lastTransition, css = Self.css
        return #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\#(escape(daemonName)) · \#(escape(snapshot.board))</title>
        <style>\#(css)\#(diagram.stateColors)\#(diagram.frameStyle)\#(nested ? Self.nestedCSS : "")</style>
        </head>
        <body data-live="no">
        <header>
          <div><h1>\#(escape(daemonName))</h1><div class="sub"><span id="board">\#(escape(snapshot.board))</span> · <span id="chip">\#(escape(snapshot.chip))</span></div></div>
          <div class="right"><span id="phase" class="phase" data-phase="\#(escape(snapshot.phase))">\#(escape(phase))</span><span id="live" class="live">connecting…</span></div>
        </header>
        <main>
          <section class="card now">
            <div class="label">state</div>
            <div id="state" class="state" data-state="\#(escape(snapshot.state))">\#(escape(snapshot.state))</div>\#(nested ? "\n    " + #"<div id="around" class="around">\#(escape(Self.around(snapshot.superstates, alsoActive: snapshot.alsoActive)))</div>"# : "")
            <div class="facts">
        \#(gaugeFacts)      <div><div class="label">uptime</div><div id="uptime" class="big">\#(Int(snapshot.uptimeSeconds)) s</div></div>
              <div><div class="label">events</div><div id="events" class="big">\#(snapshot.events)</div></div>
            </div>
            <div class="label since-label">last transition</div>
            <div id="since" class="since">\#(escape(lastTransition(snapshot)))</div>
          </section>
          <section class="card diagram">\#(diagram.svg(current: snapshot.state))</section>
          <section class="card"><h2>counters</h2><table id="counters"></table></section>
          <section class="card"><h2>outputs</h2><table id="outputs"></table></section>
          <section class="card"><h2>daemon</h2><table id="health"></table></section>
          <section class="card wide"><h2>last transitions</h2>
            <table id="transitions"><thead><tr><th>at uptime</th><th>from</th><th>event</th><th>to</th></tr></thead><tbody></tbody></table>
          </section>
        </main>
        <script>\#(script)</script>
        </body>
        </html>
        """#
    }

    /// The newest transition in words, as the script writes it too.
    static func lastTransition(_ snapshot: DaemonSnapshot) -> String {
        guard let last = snapshot.lastTransitions.last else { return "none yet" }
        return "\(last.event): \(last.from) → \(last.to)"
    }

    /// Text made safe for HTML content and attribute values: first shown as every sink shows
    /// text (``StringProtocol/shownLine``: no control, bidirectional or zero-width character
    /// reorders or hides what the page says, and a 70 KB name is cut), then HTML-escaped.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text.shownLine {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// What surrounds the state of a nested machine, in a line under it (`in inService in
    /// operating`, `· also outerOpen`): the state's own name stays the big word on its line.
    static func around(_ superstates: [String], alsoActive: [String]) -> String {
        (superstates.map { "in " + $0 } + (alsoActive.isEmpty ? [] : ["· also " + alsoActive.joined(separator: ", ")])).joined(separator: " ")
    }

    /// The line under a nested machine's state (none on a flat machine's page, which stays as
    /// it was).
    static let nestedCSS = ".around{font-size:14px;color:#334155;margin:-8px 0 12px}"

    static let css = """
    :root{--bg:#f4f6f9;--card:#fff;--ink:#0f172a;--muted:#64748b;--line:#e2e8f0;--accent:#2563eb}
    *{box-sizing:border-box}
    body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
    header{display:flex;justify-content:space-between;align-items:center;padding:14px 22px;background:#0f172a;color:#fff}
    h1{margin:0;font-size:20px;letter-spacing:.5px}
    .sub{color:#94a3b8;font-size:13px}
    .right{display:flex;gap:10px;align-items:center}
    .phase{padding:3px 10px;border-radius:999px;background:#f59e0b;color:#111;font-weight:600;font-size:13px}
    .phase[data-phase=running]{background:#22c55e}
    .phase[data-phase=degraded],.phase[data-phase=stopped]{background:#ef4444;color:#fff}
    .live{font-size:12px;color:#94a3b8}
    .live.bad{color:#fca5a5}
    main{display:grid;grid-template-columns:260px 1fr;gap:14px;padding:14px 22px;max-width:1100px}
    .card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:14px 16px}
    .wide{grid-column:1/-1}
    h2{margin:0 0 8px;font-size:13px;text-transform:uppercase;letter-spacing:.8px;color:var(--muted)}
    .label{font-size:12px;text-transform:uppercase;letter-spacing:.8px;color:var(--muted)}
    .state{font-size:34px;font-weight:700;margin:2px 0 12px;color:var(--c,var(--accent))}
    .facts{display:grid;grid-template-columns:1fr 1fr 1fr;gap:8px}
    .since-label{margin-top:16px}
    .since{font-size:14px;color:#334155}
    .big{font-size:20px;font-weight:600;font-variant-numeric:tabular-nums}
    #diagram{width:100%;height:auto;max-height:360px;display:block}
    .edge{fill:none;stroke:#94a3b8;stroke-width:1.6}
    .edge-label{font-size:13px;fill:#475569;paint-order:stroke;stroke:#fff;stroke-width:4px}
    .condition{font-size:11px;fill:#64748b}
    .node rect{fill:#f8fafc;stroke:#cbd5e1;stroke-width:1.5}
    .node text{font-size:15px;font-weight:600;fill:#334155}
    .node.current rect{fill:var(--c);stroke:var(--c);filter:drop-shadow(0 2px 6px rgba(15,23,42,.35))}
    .node.current text{fill:#fff}
    .node .stays{font-size:11px;font-weight:400;fill:#64748b}
    .caption{font-size:11px;fill:#64748b}
    .initial{fill:#64748b}
    table{width:100%;border-collapse:collapse;font-variant-numeric:tabular-nums}
    td,th{padding:3px 6px;border-bottom:1px solid var(--line);text-align:left;font-size:14px}
    th{color:var(--muted);font-weight:500;font-size:12px;text-transform:uppercase}
    td.n{text-align:right;font-weight:600}
    #transitions td:first-child{color:var(--muted)}
    @media (max-width:700px){main{grid-template-columns:1fr}}
    """

    /// Text as a JavaScript string literal that cannot end the `<script>` it is in.
    static func javaScriptString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || "\\\"<>&\u{2028}\u{2029}".unicodeScalars.contains(scalar) {
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// `.name` for a name that is an identifier (`s.credit`), `["name"]` for any other.
    static func javaScriptProperty(_ name: String) -> String {
        let identifier = name.unicodeScalars.enumerated().allSatisfy { offset, scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || scalar == "_" || scalar == "$"
                || (offset > 0 && ("0"..."9").contains(scalar)))
        }
        return identifier && !name.isEmpty ? "." + name : "[" + javaScriptString(name) + "]"
    }

    static func script(daemonName: String, gauges: [(name: String, id: String)], nested: Bool = false) -> String {
        // A nested machine's state is shown with the superstates around it, on a line of its own.
        let aroundLine = nested
            ? "\n" + #"  $("around").textContent = (s.superstates || []).map((x) => "in " + x).concat((s.alsoActive || []).length ? ["· also " + s.alsoActive.join(", ")] : []).join(" ");"#
            : ""
        let gaugeLines = gauges.map { gauge in
            "  $(\(javaScriptString(gauge.id))).textContent = s\(javaScriptProperty(gauge.name));\n"
        }.joined()
        return """
    "use strict";
    const $ = (id) => document.getElementById(id);
    function uptime(s) {
      s = Math.floor(s);
      const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
      const hms = [h, m, s % 60].map((v) => String(v).padStart(2, "0")).join(":");
      return d > 0 ? d + " d " + hms : hms;
    }
    function rows(table, pairs) {
      table.replaceChildren(...pairs.map(([k, v]) => {
        const tr = document.createElement("tr"), a = document.createElement("td"), b = document.createElement("td");
        a.textContent = k; b.textContent = v; b.className = "n"; tr.append(a, b); return tr;
      }));
    }
    function render(s) {
      $("board").textContent = s.board;
      $("chip").textContent = s.chip;
      $("phase").textContent = s.phase + (s.degradedReason ? " — " + s.degradedReason : "");
      $("phase").dataset.phase = s.phase;
      $("state").textContent = s.state;\(aroundLine)
      $("state").dataset.state = s.state;
    \(gaugeLines)  $("uptime").textContent = uptime(s.uptimeSeconds);
      $("events").textContent = s.events;
      const last = s.lastTransitions[s.lastTransitions.length - 1];
      $("since").textContent = last ? last.event + ": " + last.from + " → " + last.to : "none yet";
      document.title = \(javaScriptString(daemonName + " · ")) + s.state + " · " + s.board;
      for (const g of document.querySelectorAll("#diagram .node")) {
        g.classList.toggle("current", g.dataset.state === s.state\(nested ? #" || (s.alsoActive || []).includes(g.dataset.state)"# : ""));
      }
      rows($("counters"), Object.keys(s.counters).sort().map((k) => [k, s.counters[k]]));
      // Each output's level and meaning, and why the host holds it there when it does.
      rows($("outputs"), (s.outputs || []).map((o) => [o.name, o.level + [o.meaning, o.held].filter((x) => x).map((x) => " (" + x + ")").join("")]));
      rows($("health"), [["queue depth", s.queueDepth], ["dropped commands", s.droppedCommands],
        ["lost edges", s.lostEdges], ["trace losses", s.traceLosses]].concat(s.site ? [
        ["MQTT broker", s.site.broker + (s.site.connected ? " (connected)" : " (away)")],
        ["MQTT outbox", s.site.outboxDepth]] : []));
      const body = $("transitions").tBodies[0];
      body.replaceChildren(...s.lastTransitions.slice(-\(shownTransitions)).reverse().map((t) => {
        const tr = document.createElement("tr");
        for (const v of [uptime(t.time), t.from, t.event, t.to]) {
          const td = document.createElement("td"); td.textContent = v; tr.append(td);
        }
        return tr;
      }));
    }
    \(PagePolling.loop(path: "/status", everyMilliseconds: pollMilliseconds, source: "the daemon"))
    """
    }
}
