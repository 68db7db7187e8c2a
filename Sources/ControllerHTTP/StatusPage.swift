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
    static let nestedCSS = PageTemplate.text(PackageResources.status_page_nested_css)

    static let css = PageTemplate.text(PackageResources.status_page_css)

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

    /// Pages/status-page.js with the page's holes filled, then the polling loop. The holes:
    /// `nested`, the lines a nested machine's page has (the superstates around the state, a node
    /// also active drawn as current); `gauges`, a line a gauge (the file's sample is the
    /// turnstile's credit); `titlePrefix` and `shownTransitions`.
    static func script(daemonName: String, gauges: [(name: String, id: String)], nested: Bool = false) -> String {
        let gaugeLines = gauges.map { gauge in
            "  $(\(javaScriptString(gauge.id))).textContent = s\(javaScriptProperty(gauge.name));\n"
        }.joined()
        let script = PageTemplate.fill(
            PageTemplate.text(PackageResources.status_page_js),
            [
                "nested": nested ? .sample : .nothing, "gauges": .text(gaugeLines),
                "titlePrefix": .text(javaScriptString(daemonName + " · ")), "shownTransitions": .text(String(shownTransitions)),
            ],
            file: "status-page.js")
        return script + "\n" + PagePolling.loop(path: "/status", everyMilliseconds: pollMilliseconds, source: "the daemon")
    }
}
