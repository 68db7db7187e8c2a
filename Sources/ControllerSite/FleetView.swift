import ControllerHTTP
import ControllerHost
import ControllerMQTT
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the broker has said about each node, from its retained messages.
///
/// Every message comes in through ``take(_:now:)``, and only there is it read: a payload
/// longer than ``FleetLimits/maxPayloadBytes`` is not read at all (its client never took more
/// of it), and every value of one that is read is bounded as it is taken (``FleetCut``). So no
/// output (the table, `--json`, the site page, `/site.json`) carries more of a node's words
/// than the bounds allow, and each says what was cut (``SiteOverview/Controller/notes``).
package struct FleetView {
    package struct Node: Equatable {
        var availability: String?
        /// When this watcher saw the availability change (Unix nanoseconds); nil for the value
        /// the broker had kept when it subscribed.
        var availabilityChanged: Int64?
        var app: String?
        var state: String?
        var gauges: [String: Int] = [:]
        var totals: [String: Int] = [:]
        var lastEventUnixNanoseconds: Int64?
        var health: SitePayload.Health?
        /// What the bounds took from each leaf's last message, or that it was not read.
        var cut: [FleetLeaf: String] = [:]

        /// What a leaf's message said, forgotten: a message that replaced it was not read.
        mutating func forget(_ leaf: FleetLeaf) {
            switch leaf {
            case .availability: availability = nil
            case .state:
                state = nil
                gauges = [:]
            case .counters:
                totals = [:]
                lastEventUnixNanoseconds = nil
            case .health: health = nil
            }
        }
    }

    package let prefix: String
    package var nodes: [String: Node] = [:]
    package var subscribed = false
    package var lastFailure: String?
    /// Goes up with every change, so `--follow` prints only what changed.
    package var version = 0
    package var ignoredNodes = 0
    /// Messages under a level too long for a node's topics (``SiteTopics/listedLevelProblem(_:prefix:)``):
    /// no node `fleet --retire` could clear, so none it lists.
    package var unlistedMessages = 0

    /// The subscription's filters: every node's ``FleetLeaf``.
    package var filters: [String] { FleetLeaf.allCases.map { "\(prefix)/+/\($0.rawValue)" } }

    package init(prefix: String) {
        self.prefix = prefix
    }

    package mutating func take(_ event: MQTTEvent, now: Int64 = FleetView.unixNow()) {
        switch event {
        case .subscribed: subscribed = true
        case .connected: lastFailure = nil
        case .connectFailed(let error, _): lastFailure = "\(error)"
        case .disconnected(let error):
            subscribed = false
            lastFailure = error.map { "\($0)" } ?? "disconnected"
        case .message(let message): take(message, now: now)
        default: return
        }
    }

    private mutating func take(_ message: MQTTMessage, now: Int64) {
        let levels = message.topic.split(separator: "/", omittingEmptySubsequences: false)
        let prefixLevels = prefix.split(separator: "/").count
        guard levels.count == prefixLevels + 2, let leaf = FleetLeaf(rawValue: String(levels[prefixLevels + 1])) else { return }
        let node = String(levels[prefixLevels])
        guard node != SiteTopics.everyNode else { return }
        guard SiteTopics.listedLevelProblem(node, prefix: prefix) == nil else {
            unlistedMessages += 1
            version += 1
            return
        }
        guard nodes[node] != nil || nodes.count < FleetLimits.maxNodes else {
            ignoredNodes += 1
            return
        }
        var entry = nodes[node] ?? Node()
        if message.isCut || message.payloadBytes > FleetLimits.maxPayloadBytes {
            entry.forget(leaf)
            entry.cut[leaf] = "a message of \(message.payloadBytes) bytes, over fleet's \(FleetLimits.maxPayloadBytes): not read"
        } else {
            var cut = FleetCut()
            switch leaf {
            case .availability:
                // An empty retained message clears the topic: a node removed from the site.
                let availability = message.payload.isEmpty ? nil : cut.value(String(decoding: message.payload, as: UTF8.self), "availability")
                if let known = entry.availability, known != availability { entry.availabilityChanged = now }
                entry.availability = availability
            case .state:
                guard let state = try? JSONDecoder().decode(SitePayload.State.self, from: Data(message.payload)) else { return }
                entry.app = cut.value(state.app, "app")
                entry.state = cut.value(state.state, "state")
                entry.gauges = cut.named(state.gauges, "gauges")
            case .counters:
                guard let counters = try? JSONDecoder().decode(SitePayload.Counters.self, from: Data(message.payload)) else { return }
                entry.app = cut.value(counters.app, "app")
                entry.totals = cut.named(counters.totals, "totals")
                entry.lastEventUnixNanoseconds = counters.lastEventUnixNanoseconds
            case .health:
                guard var health = try? JSONDecoder().decode(SitePayload.Health.self, from: Data(message.payload)) else { return }
                // A node's words, bounded: a buggy or hostile node cannot fill the page.
                health.app = cut.value(health.app, "app")
                health.phase = cut.value(health.phase, "phase")
                health.problems = cut.list(health.problems, "problems", count: FleetLimits.maxProblems, characters: FleetLimits.maxProblemCharacters)
                entry.app = entry.app ?? health.app
                entry.health = health
            }
            entry.cut[leaf] = cut.words
        }
        guard nodes[node] != entry else { return }
        nodes[node] = entry
        version += 1
    }

    /// Each application's totals summed over its nodes.
    package var sums: [String: [String: Int]] {
        var sums: [String: [String: Int]] = [:]
        for node in nodes.values {
            // Totals come from the broker: a buggy or hostile node may claim Int.max. The sum
            // saturates rather than traps, so one node cannot blind the site's overview.
            sums[node.app ?? "?", default: [:]].merge(node.totals) { $0.saturatingAdding($1) }
        }
        return sums
    }

    /// Nanoseconds from a node's `lastEventUnixNanoseconds` (any Int64 the broker carried) to
    /// `now`, held at the Int64 bounds instead of overflowing.
    package static func elapsed(since then: Int64, now: Int64) -> Int64 {
        now.saturatingSubtracting(then)
    }

    package static func unixNow() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1e9).rounded())
    }

    /// What the watcher says of node `name`'s messages: a level that is no node id (listed,
    /// and `--retire` clears it, but no daemon of this runtime publishes as it), then what the
    /// bounds took from each leaf.
    package func notes(_ name: String) -> [String] {
        let level = SiteTopics.nodeIDProblem(name).map { "not a node id, as it \($0); no daemon publishes as it, and --retire clears it" }
        let cut = (nodes[name]?.cut ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key.rawValue): \($0.value)" }
        return (level.map { [$0] } ?? []) + cut
    }

    /// The site as `fleet --json` prints it and the site page shows it.
    package func overview(now: Int64) -> SiteOverview {
        let controllers = nodes.keys.sorted().map { name in
            let node = nodes[name]!
            // Online since the process started (its health says when); offline since this
            // watcher saw it go, when it did.
            let since = node.availability == SitePayload.online ? node.health?.started ?? node.availabilityChanged : node.availabilityChanged
            let notes = notes(name)
            return SiteOverview.Controller(
                node: name, app: node.app, availability: node.availability, availabilitySince: since.map(SitePayload.timestamp),
                phase: node.health?.phase, state: node.state, gauges: node.gauges, totals: node.totals, outbox: node.health?.outbox,
                problems: node.health?.problems ?? [],
                lastEvent: node.lastEventUnixNanoseconds.map(SitePayload.timestamp),
                lastEventAgeSeconds: node.lastEventUnixNanoseconds.map { Double(Self.elapsed(since: $0, now: now)) / 1e9 },
                notes: notes.isEmpty ? nil : notes)
        }
        return SiteOverview(
            controllers: controllers, online: nodes.values.filter { $0.availability == SitePayload.online }.count, sums: sums,
            prefix: prefix, connected: subscribed, brokerProblem: subscribed ? nil : lastFailure, notShown: ignoredNodes > 0 ? ignoredNodes : nil,
            notListed: unlistedMessages > 0 ? unlistedMessages : nil)
    }

    package func json(now: Int64) -> String {
        String(decoding: SiteServer.json(overview(now: now)), as: UTF8.self)
    }

    package func table(now: Int64) -> String {
        guard !nodes.isEmpty else {
            return "no controller has published under \(prefix.shown)/ on this broker" + (unlistedMessages > 0 ? " \(Self.unlistedLine(unlistedMessages))" : "")
        }
        let header = ["NODE", "APP", "AVAILABLE", "STATE", "LAST EVENT", "OUTBOX", "TOTALS"]
        var rows = [header]
        for name in nodes.keys.sorted() {
            let node = nodes[name]!
            rows.append([
                name.isEmpty ? "''" : name.shown, node.app.map(\.shown) ?? "?", node.availability.map(\.shown) ?? "?", node.state.map(\.shown) ?? "?",
                node.lastEventUnixNanoseconds.map { SiteOverview.age(seconds: Self.elapsed(since: $0, now: now) / 1_000_000_000) } ?? "never",
                node.health.map { "\($0.outbox)" } ?? "?", SiteOverview.counts(node.totals),
            ])
        }
        let widths = (0..<header.count - 1).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            zip(row.dropLast(), widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ") + "  " + row.last!
        }
        let online = nodes.values.filter { $0.availability == SitePayload.online }.count
        lines.append("")
        lines.append("site: \(nodes.count) controller(s), \(online) online")
        for (app, totals) in sums.sorted(by: { $0.key < $1.key }) {
            let count = nodes.values.filter { ($0.app ?? "?") == app }.count
            lines.append("  \(app.shown) (\(count)): \(SiteOverview.counts(totals))")
        }
        for name in nodes.keys.sorted() {
            guard let problems = nodes[name]?.health?.problems, !problems.isEmpty else { continue }
            lines.append("  \(name.shown): \(problems.map(\.shown).joined(separator: "; "))")
        }
        for name in nodes.keys.sorted() {
            let notes = notes(name)
            guard !notes.isEmpty else { continue }
            lines.append("  \(name.isEmpty ? "''" : name.shown): \(notes.joined(separator: "; "))".shownLine)
        }
        if ignoredNodes > 0 { lines.append("(\(ignoredNodes) message(s) of nodes past \(FleetLimits.maxNodes) were not shown)") }
        if unlistedMessages > 0 { lines.append(Self.unlistedLine(unlistedMessages)) }
        return lines.joined(separator: "\n")
    }

    package static func unlistedLine(_ count: Int) -> String {
        "(\(count) message(s) under node levels too long for a node's topics were not shown)"
    }
}

/// What the bounds took from one message, gathered as its values are bounded: each value
/// longer than its bound keeps its start and ends in `… (N bytes)`, and the message's note
/// names what was cut.
package struct FleetCut {
    private(set) var parts: [String] = []

    /// The note, or nil when nothing was cut.
    package var words: String? { parts.isEmpty ? nil : parts.joined(separator: ", ") }

    package mutating func value(_ text: String, _ what: String, limit: Int = FleetLimits.maxValueCharacters) -> String {
        guard text.unicodeScalars.count > limit else { return text }
        parts.append("\(what) of \(text.utf8.count) bytes cut to \(limit) characters")
        return ShownText.render(text, limit: limit, escaping: false)
    }

    /// At most ``FleetLimits/maxNamedValues`` of `values`, the first by name, each name
    /// bounded; two names that are one once cut keep the first's value.
    package mutating func named(_ values: [String: Int], _ what: String) -> [String: Int] {
        var result: [String: Int] = [:]
        var cutNames = 0
        for (name, value) in values.sorted(by: { $0.key < $1.key }).prefix(FleetLimits.maxNamedValues) {
            let bounded = name.unicodeScalars.count > FleetLimits.maxNameCharacters
                ? ShownText.render(name, limit: FleetLimits.maxNameCharacters, escaping: false) : name
            if bounded != name { cutNames += 1 }
            if result[bounded] == nil { result[bounded] = value }
        }
        if values.count > FleetLimits.maxNamedValues { parts.append("\(values.count) \(what), the first \(FleetLimits.maxNamedValues) by name shown") }
        if cutNames > 0 { parts.append("\(cutNames) \(what) name(s) cut to \(FleetLimits.maxNameCharacters) characters") }
        return result
    }

    /// The first `count` of `values`, each at most `characters`.
    package mutating func list(_ values: [String], _ what: String, count: Int, characters: Int) -> [String] {
        var cutValues = 0
        let kept = values.prefix(count).map { value -> String in
            guard value.unicodeScalars.count > characters else { return value }
            cutValues += 1
            return ShownText.render(value, limit: characters, escaping: false)
        }
        if values.count > count { parts.append("\(values.count) \(what), the first \(count) shown") }
        if cutValues > 0 { parts.append("\(cutValues) of the \(what) cut to \(characters) characters") }
        return kept
    }
}
