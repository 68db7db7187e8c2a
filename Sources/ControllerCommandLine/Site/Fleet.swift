import ArgumentParser
import ControllerFSM
import ControllerHost
import ControllerMQTT
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#endif

/// `fleet`: every controller on the site's broker, from its retained messages alone.
struct Fleet<App: ControllerApplication>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "fleet",
            abstract: "List every controller on the site's MQTT broker: availability, state, totals, the age of its last event, and the site's sums.",
            discussion: """
            A plain MQTT client: it reads the retained availability, state and counters every \
            node publishes under the prefix (turnstiles, barriers, any application of the \
            runtime), so it works from any machine the broker lets in, read-only. It waits \
            --wait seconds for them, prints, and exits; with --follow it prints again on every \
            change until interrupted.

            --retire NODE clears what the broker keeps of a controller gone for good (its \
            retained availability, state, counters and claim, and its Home Assistant device), \
            so neither fleet nor Home Assistant shows it again. It is refused while the node is \
            online (a running node announces itself again), and needs a login the broker lets \
            write those topics: each clearing is checked on the broker.

            Exit status: 0 when printed (or retired), 1 when the broker could not be reached or \
            refused the login, or the node could not be retired (online, not on the broker, or \
            a clearing the broker did not take), 5 when libmosquitto is not installed, 64 for a \
            bad option.
            """)
    }

    init() {}

    @OptionGroup var connection: MQTTConnectionOptions

    @Flag(name: .long, help: "Print one JSON object (with --follow, one per line and change).")
    var json = false

    @Flag(name: .long, help: "Print again on every change, until interrupted.")
    var follow = false

    @Option(name: .long, help: ArgumentHelp("Seconds to collect the retained messages before printing (0.1 to 60).", valueName: "seconds"))
    var wait: Double = FleetLimits.defaultWaitSeconds

    @Option(name: .long, help: ArgumentHelp(
        "Retire a controller gone for good: clear its retained messages and its Home Assistant device (refused while it is online).",
        valueName: "node"))
    var retire: String?

    @Option(name: .customLong("mqtt-discovery-prefix"), help: ArgumentHelp(
        "Home Assistant's discovery prefix the node announced itself under (with --retire).", valueName: "prefix"))
    var discoveryPrefix = SiteTopics.defaultDiscoveryPrefix

    func validate() throws {
        guard connection.url != nil else { throw ValidationError("fleet needs --mqtt URL, the site's broker") }
        guard wait.isFinite, FleetLimits.waitSeconds.contains(wait) else {
            throw ValidationError("--wait must be from \(FleetLimits.waitSeconds.lowerBound) to \(FleetLimits.waitSeconds.upperBound) seconds")
        }
        _ = try SiteTopics.checkedDiscoveryPrefix(discoveryPrefix)
        if let node = retire {
            if json || follow { throw ValidationError("--retire clears one node and exits: it takes neither --json nor --follow") }
            do {
                _ = try FleetRetirement(App.self, node: node, prefix: connection.checkedPrefix(), discoveryPrefix: discoveryPrefix)
            } catch {
                throw ValidationError("--retire: \(error)")
            }
        }
    }

    func run() throws {
        let broker = try connection.broker(connection.url!)
        let prefix = try connection.checkedPrefix()
        let configuration = try connection.configuration(
            broker: broker, clientID: "fleet-\(getpid())", cleanSession: true, will: nil)
        if let node = retire {
            let retirement = Guarded(try FleetRetirement(App.self, node: node, prefix: prefix, discoveryPrefix: discoveryPrefix))
            try self.retire(retirement, broker: broker, configuration: configuration)
            return
        }
        let view = Guarded(FleetView(prefix: prefix))
        let changed = Doorbell()
        let client = try subscribed(
            configuration, broker: broker, filters: ["availability", "state", "counters"].map { "\(prefix)/+/\($0)" }, changed: changed,
            take: { event in view.withLock { $0.take(event) } },
            state: { view.withLock { ($0.subscribed, $0.lastFailure) } })
        defer { client.stop() }
        settle(changed)
        var printed = view.withLock { $0.version }
        print(render(view.withLock { $0 }))
        guard follow else { return }
        while true {
            changed.sleep(nanoseconds: 1_000_000_000) { view.withLock { $0.version } != printed }
            let current = view.withLock { $0 }
            guard current.version != printed else { continue }
            printed = current.version
            print(render(current))
        }
    }

    /// A client on `filters`, connected and subscribed, each event given to `take` and rung on
    /// `changed`; `state` says whether the subscription is in, and the last failure to connect.
    private func subscribed(
        _ configuration: MQTTConfiguration, broker: MQTTBrokerURL, filters: [String], changed: Doorbell,
        take: @escaping @Sendable (MQTTEvent) -> Void, state: () -> (subscribed: Bool, lastFailure: String?)
    ) throws -> MQTTClient {
        let client: MQTTClient
        do {
            client = try MQTTClient(configuration: configuration) { event in
                take(event)
                changed.ringAlways()
            }
            for filter in filters { try client.subscribe(filter) }
            try client.start()
        } catch {
            Terminal.error("fleet: \(error)")
            throw ExitStatus.of(error, otherwise: ExitStatus.refused)
        }
        let connectBy = ContinuousClock.now + FleetLimits.connectPatience
        while !state().subscribed {
            guard ContinuousClock.now < connectBy else {
                client.stop()
                Terminal.error("fleet: cannot reach \(broker) within \(FleetLimits.connectPatience): \(state().lastFailure ?? "no answer")")
                throw ExitStatus.refused
            }
            changed.sleep(nanoseconds: FleetLimits.pollNanoseconds) { state().subscribed }
        }
        return client
    }

    /// Retained messages come right after the subscription: waits `--wait` for them to settle.
    private func settle(_ changed: Doorbell) {
        let until = ContinuousClock.now + .milliseconds(Int64(wait * 1_000))
        while ContinuousClock.now < until { changed.sleep(nanoseconds: FleetLimits.pollNanoseconds) { false } }
    }

    /// `--retire`: finds what the broker keeps of the node, refuses an online node, clears the
    /// rest and waits for the broker to show each topic cleared.
    private func retire(_ retirement: Guarded<FleetRetirement>, broker: MQTTBrokerURL, configuration: MQTTConfiguration) throws {
        let changed = Doorbell()
        let topics = retirement.withLock { $0.topics }
        let client = try subscribed(
            configuration, broker: broker, filters: topics, changed: changed,
            take: { event in retirement.withLock { $0.take(event) } },
            state: { retirement.withLock { ($0.subscribed, $0.lastFailure) } })
        defer { client.stop() }
        settle(changed)
        let (node, online, toClear) = retirement.withLock { ($0.node, $0.isOnline, $0.toClear) }
        guard !online else {
            Terminal.error("fleet: \(node) is online (\(retirement.withLock { $0.availabilityTopic })): stop its daemon first; a running node announces itself again")
            throw ExitStatus.refused
        }
        guard !toClear.isEmpty else {
            Terminal.error("fleet: the broker keeps nothing of \(node) (looked at \(topics.joined(separator: ", "))): is the node id right? `fleet` lists the nodes")
            throw ExitStatus.refused
        }
        retirement.withLock { $0.startClearing() }
        do {
            for topic in toClear { _ = try client.publish(topic: topic, payload: [], qos: .atLeastOnce, retain: true) }
        } catch {
            Terminal.error("fleet: retiring \(node): \(error)")
            throw ExitStatus.refused
        }
        let clearedBy = ContinuousClock.now + FleetLimits.connectPatience
        while !retirement.withLock({ $0.unconfirmed.isEmpty }), ContinuousClock.now < clearedBy {
            changed.sleep(nanoseconds: FleetLimits.pollNanoseconds) { retirement.withLock { $0.unconfirmed.isEmpty } }
        }
        let unconfirmed = retirement.withLock { $0.unconfirmed }
        guard unconfirmed.isEmpty else {
            Terminal.error("fleet: the broker did not clear \(unconfirmed.joined(separator: ", ")) within \(FleetLimits.connectPatience): may this login (--mqtt-username) write them? The broker's ACL decides")
            throw ExitStatus.refused
        }
        print("retired \(node): cleared \(toClear.joined(separator: ", "))")
    }

    private func render(_ view: FleetView) -> String {
        let now = Int64((Date().timeIntervalSince1970 * 1e9).rounded())
        return json ? view.json(now: now) : view.table(now: now)
    }
}

/// The bounds of `fleet`.
enum FleetLimits {
    static let defaultWaitSeconds = 2.0
    static let waitSeconds = 0.1...60.0
    static let connectPatience: Duration = .seconds(10)
    /// How often a wait looks again when nothing rings.
    static let pollNanoseconds: Int64 = 50_000_000
    /// Nodes it keeps: a broker that offers more is not a site this view can show.
    static let maxNodes = 10_000
}

/// What the broker has said about each node, from its retained messages.
struct FleetView {
    struct Node: Equatable {
        var availability: String?
        var app: String?
        var state: String?
        var gauges: [String: Int] = [:]
        var totals: [String: Int] = [:]
        var lastEventUnixNanoseconds: Int64?
    }

    let prefix: String
    var nodes: [String: Node] = [:]
    var subscribed = false
    var lastFailure: String?
    /// Goes up with every change, so `--follow` prints only what changed.
    var version = 0
    var ignoredNodes = 0

    init(prefix: String) {
        self.prefix = prefix
    }

    mutating func take(_ event: MQTTEvent) {
        switch event {
        case .subscribed: subscribed = true
        case .connectFailed(let error, _): lastFailure = "\(error)"
        case .message(let message): take(message)
        default: return
        }
    }

    private mutating func take(_ message: MQTTMessage) {
        let levels = message.topic.split(separator: "/", omittingEmptySubsequences: false)
        let prefixLevels = prefix.split(separator: "/").count
        guard levels.count == prefixLevels + 2 else { return }
        let node = String(levels[prefixLevels])
        guard node != SiteTopics.everyNode else { return }
        guard nodes[node] != nil || nodes.count < FleetLimits.maxNodes else {
            ignoredNodes += 1
            return
        }
        var entry = nodes[node] ?? Node()
        switch levels[prefixLevels + 1] {
        case "availability":
            entry.availability = String(decoding: message.payload, as: UTF8.self)
        case "state":
            guard let state = try? JSONDecoder().decode(SitePayload.State.self, from: Data(message.payload)) else { return }
            entry.app = state.app
            entry.state = state.state
            entry.gauges = state.gauges
        case "counters":
            guard let counters = try? JSONDecoder().decode(SitePayload.Counters.self, from: Data(message.payload)) else { return }
            entry.app = counters.app
            entry.totals = counters.totals
            entry.lastEventUnixNanoseconds = counters.lastEventUnixNanoseconds
        default: return
        }
        // An empty retained message clears the topic: a node removed from the site.
        if message.payload.isEmpty && levels[prefixLevels + 1] == "availability" { entry.availability = nil }
        guard nodes[node] != entry else { return }
        nodes[node] = entry
        version += 1
    }

    /// Each application's totals summed over its nodes.
    var sums: [String: [String: Int]] {
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
    static func elapsed(since then: Int64, now: Int64) -> Int64 {
        now.saturatingSubtracting(then)
    }

    func json(now: Int64) -> String {
        struct Controller: Encodable {
            var node: String
            var app: String?
            var availability: String?
            var state: String?
            var gauges: [String: Int]
            var totals: [String: Int]
            var lastEvent: String?
            var lastEventAgeSeconds: Double?
        }
        struct Site: Encodable {
            var controllers: [Controller]
            var online: Int
            var sums: [String: [String: Int]]
        }
        let controllers = nodes.keys.sorted().map { name in
            let node = nodes[name]!
            return Controller(
                node: name, app: node.app, availability: node.availability, state: node.state, gauges: node.gauges, totals: node.totals,
                lastEvent: node.lastEventUnixNanoseconds.map(SitePayload.timestamp),
                lastEventAgeSeconds: node.lastEventUnixNanoseconds.map { Double(Self.elapsed(since: $0, now: now)) / 1e9 })
        }
        let site = Site(controllers: controllers, online: nodes.values.filter { $0.availability == SitePayload.online }.count, sums: sums)
        return JSONText.escapingInvisibles(String(decoding: SitePayload.encode(site), as: UTF8.self))
    }

    func table(now: Int64) -> String {
        guard !nodes.isEmpty else { return "no controller has published under \(prefix.shown)/ on this broker" }
        let header = ["NODE", "APP", "AVAILABLE", "STATE", "LAST EVENT", "TOTALS"]
        var rows = [header]
        for name in nodes.keys.sorted() {
            let node = nodes[name]!
            rows.append([
                name.shown, node.app.map(\.shown) ?? "?", node.availability.map(\.shown) ?? "?", node.state.map(\.shown) ?? "?",
                node.lastEventUnixNanoseconds.map { Self.age(Self.elapsed(since: $0, now: now)) } ?? "never", Self.counts(node.totals),
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
            lines.append("  \(app.shown) (\(count)): \(Self.counts(totals))")
        }
        if ignoredNodes > 0 { lines.append("(\(ignoredNodes) message(s) of nodes past \(FleetLimits.maxNodes) were not shown)") }
        return lines.joined(separator: "\n")
    }

    /// `coins 12, passages 11`: the kinds that happened, by name.
    static func counts(_ totals: [String: Int]) -> String {
        let shown = totals.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map { "\($0.key.shown) \($0.value)" }
        return shown.isEmpty ? "nothing counted" : shown.joined(separator: ", ")
    }

    /// `4 s ago`, `12 min ago`, `3 h ago`, `2 d ago`.
    static func age(_ nanoseconds: Int64) -> String {
        let seconds = max(0, nanoseconds / 1_000_000_000)
        switch seconds {
        case ..<120: return "\(seconds) s ago"
        case ..<7_200: return "\(seconds / 60) min ago"
        case ..<172_800: return "\(seconds / 3_600) h ago"
        default: return "\(seconds / 86_400) d ago"
        }
    }
}
