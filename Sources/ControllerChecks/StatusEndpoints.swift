import Foundation

/// A daemon's status endpoints as their consumers see them, for every daemon the same checks,
/// and a product's own besides where its package declares them (``StatusCheckSpec``):
/// - `/metrics` (read by the Prometheus parser, ``MetricFamily``) has the runtime's families and
///   the product's, exactly one state at 1, the product's states and event kinds;
/// - `/status` is a JSON object with every key of the runtime's snapshot (and the product's), its
///   counters among the metrics' event kinds, its state among their states;
/// - the page, as a browser drew it, is this daemon's: its name, its own diagram with the state
///   `/status` reports highlighted, a row per counter.
public struct StatusEndpoints: Sendable {
    /// The runtime's families every daemon has (after its `NAME_` prefix) and their types.
    public static let runtimeFamilies: [(suffix: String, type: String)] = [
        ("events", "counter"), ("dispatched_events", "counter"), ("dropped_commands", "counter"),
        ("lost_edges", "counter"), ("trace_losses", "counter"),
        ("state", "gauge"), ("phase", "gauge"), ("queue_depth", "gauge"), ("uptime_seconds", "gauge"),
        ("edge_to_relay_seconds", "histogram"),
    ]
    /// The keys of the runtime's snapshot on `/status`.
    public static let runtimeStatusKeys: Set<String> = [
        "phase", "state", "counters", "uptimeSeconds", "board", "chip", "events",
        "queueDepth", "droppedCommands", "lostEdges", "traceLosses", "lastTransitions",
    ]
    /// The fields of each of `/status`' `lastTransitions`.
    public static let transitionKeys: Set<String> = ["time", "from", "event", "to"]

    /// The daemon's name: the prefix of its `NAME_state` family.
    public let daemon: String
    /// The states `NAME_state` labels.
    public let states: [String]
    /// The one at 1.
    public let currentState: String
    /// The kinds `NAME_events_total` counts.
    public let kinds: [String]
    /// What its package says it shows; nil when no package declares it (only the runtime's checks).
    public let product: StatusCheckSpec?
    /// How many families and samples the parser read.
    public let familyCount: Int
    public let sampleCount: Int

    /// Checks the metrics; `product` gives what the daemon named by its state family must show
    /// (nil for none).
    public init(families: [MetricFamily], product: (String) throws(CheckFailure) -> StatusCheckSpec?) throws(CheckFailure) {
        let stateFamilies = families.filter {
            $0.type == "gauge" && $0.name.hasSuffix("_state") && !$0.samples.isEmpty && $0.samples.allSatisfy { $0.labels["state"] != nil }
        }
        guard stateFamilies.count == 1 else {
            throw CheckFailure("/metrics: expected one NAME_state gauge with a state label, found \(stateFamilies.map(\.name))")
        }
        let daemon = String(stateFamilies[0].name.dropLast("_state".count))
        let spec = try product(daemon)
        let byName = Dictionary(families.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        for (suffix, type) in Self.runtimeFamilies + (spec?.gauges ?? []).map({ ($0, "gauge") }) {
            let name = "\(daemon)_\(suffix)"
            guard let family = byName[name] else {
                problems.append("family \(name) missing")
                continue
            }
            if family.type != type { problems.append("family \(name) is a \(family.type), expected a \(type)") }
        }
        guard problems.isEmpty else { throw CheckFailure("/metrics: " + problems.joined(separator: "; ")) }
        let stateSamples = stateFamilies[0].samples
        states = stateSamples.compactMap { $0.labels["state"] }
        let current = stateSamples.filter { $0.value == 1 }.compactMap { $0.labels["state"] }
        if current.count != 1 {
            problems.append("\(daemon)_state has \(current.count) states at 1, expected exactly one")
        }
        if let spec, states.sorted() != spec.states.sorted() {
            problems.append("\(daemon)_state names the states \(states), expected \(daemon)'s \(spec.states)")
        }
        kinds = Set(byName["\(daemon)_events"]?.samples.compactMap { $0.labels["kind"] } ?? []).sorted()
        for kind in spec?.kinds ?? [] where !kinds.contains(kind) {
            problems.append("\(daemon)_events_total{kind=\"\(kind)\"} missing")
        }
        guard problems.isEmpty else { throw CheckFailure("/metrics: " + problems.joined(separator: "; ")) }
        self.daemon = daemon
        self.currentState = current[0]
        self.product = spec
        familyCount = families.count
        sampleCount = families.reduce(0) { $0 + $1.samples.count }
    }

    /// What the metrics check found, in a line.
    public var metricsSummary: String {
        "\(daemon), \(familyCount) families, \(sampleCount) samples, current state \(currentState)"
            + (product == nil ? " (only the runtime's checks: no package's packaging/checks.json says what \(daemon) shows)" : "")
    }

    /// Checks `/status`' body; its state.
    @discardableResult
    public func checkStatus(json: String) throws(CheckFailure) -> String {
        try checkStatus(try Self.statusObject(json))
    }

    private func checkStatus(_ status: [String: JSONField]) throws(CheckFailure) -> String {
        let missing = Self.runtimeStatusKeys.union(product?.statusKeys ?? []).subtracting(status.keys).sorted()
        guard missing.isEmpty else { throw CheckFailure("/status lacks \(missing.joined(separator: ", "))") }
        let unknown = Self.counters(status).filter { !kinds.contains($0) }
        guard unknown.isEmpty else {
            throw CheckFailure("/status counts \(unknown.joined(separator: ", ")), which /metrics has no \(daemon)_events_total kind for")
        }
        guard case .text(let state) = status["state"], states.contains(state) else {
            let said = switch status["state"] { case .text(let text): text; case let other?: "\(other)"; case nil: "nothing" }
            throw CheckFailure("/status says state \(said), which is not among /metrics' states \(states)")
        }
        if case .list(let transitions) = status["lastTransitions"] {
            for transition in transitions {
                guard case .object(let fields) = transition, Self.transitionKeys.isSubset(of: fields.keys) else {
                    throw CheckFailure("/status has a transition without time, from, event and to: \(transition)")
                }
            }
        }
        return state
    }

    /// Checks the page `dom` (Chromium's `--dump-dom` after its script ran) against `/status`'
    /// body `statusJSON`; a line saying what it found.
    public func checkPage(dom: String, statusJSON: String) throws(CheckFailure) -> String {
        let status = try Self.statusObject(statusJSON)
        let state = try checkStatus(status)
        let counters = Self.counters(status)
        guard dom.contains(#"data-live="yes""#) else {
            throw CheckFailure("the page's script never got an answer from /status (body is not data-live=yes)")
        }
        guard dom.contains("<h1>\(daemon)</h1>") else {
            throw CheckFailure("the page's heading is not \(daemon): \(dom.matches(of: #/<h1>([^<]*)</h1>/#).map { String($0.output.1) })")
        }
        let shown = dom.firstMatch(of: #/<div id="state"[^>]*>([^<]*)</div>/#).map { String($0.output.1) }
        guard shown == state else {
            throw CheckFailure("the page shows state \(shown.map { "\"\($0)\"" } ?? "nothing"), /status says \"\(state)\"")
        }
        let nodes = dom.matches(of: #/<g class="node(?: current)?" data-state="([^"]+)"/#).map { String($0.output.1) }
        guard nodes.sorted() == states.sorted() else {
            throw CheckFailure("the diagram's states are \(nodes), \(daemon)'s are \(states)")
        }
        let highlighted = dom.matches(of: #/<g class="node current" data-state="([^"]+)"/#).map { String($0.output.1) }
        guard highlighted == [state] else {
            throw CheckFailure("the diagram highlights \(highlighted), expected [\(state)]")
        }
        let missing = counters.filter { !dom.contains("<td>\($0)</td>") }
        guard missing.isEmpty, !counters.isEmpty else {
            throw CheckFailure("the counters table was not drawn (no row for \(missing.isEmpty ? "any counter" : missing.joined(separator: ", ")))")
        }
        return "the rendered page is \(daemon)'s, its diagram's \(nodes.count) states with \(state) highlighted, \(counters.count) counters"
    }

    private static func statusObject(_ json: String) throws(CheckFailure) -> [String: JSONField] {
        try decodeJSON(json, what: "/status", expected: "a JSON object")
    }

    /// The names `/status`' counters object holds, sorted.
    private static func counters(_ status: [String: JSONField]) -> [String] {
        guard case .object(let counters) = status["counters"] else { return [] }
        return counters.keys.sorted()
    }
}
