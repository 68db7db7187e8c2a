import ControllerFSM
import ControllerHost
import ControllerMQTT

/// Why the fleet could not do what it was asked, in words the user acts on (the command line
/// says them after `fleet: `).
package enum FleetFailure: Error, CustomStringConvertible {
    /// The client could not be made or started (a library missing, a file unreadable).
    case client(MQTTError)
    /// No subscription within the patience: the broker's address, and its last refusal.
    case unreachable(broker: String, patience: Duration, lastFailure: String?)
    case online(node: String, availability: String)
    case nothingKept(node: String, lookedAt: [String])
    case clearing(node: String, MQTTError)
    /// The broker did not show these topics cleared: its access list refused them, most likely.
    case notCleared([String], patience: Duration)

    package var description: String {
        switch self {
        case .client(let error): "\(error)"
        case let .unreachable(broker, patience, lastFailure): "cannot reach \(broker) within \(patience): \(lastFailure ?? "no answer")"
        case let .online(node, availability):
            "'\(node.shown)' is online (\(availability)): stop its daemon first; a running node announces itself again"
        case let .nothingKept(node, topics):
            "the broker keeps nothing of '\(node.shown)' (looked at \(topics.joined(separator: ", "))): is the node id right? `fleet` lists the nodes"
        case let .clearing(node, error): "retiring '\(node.shown)': \(error)"
        case let .notCleared(topics, patience):
            "the broker did not clear \(topics.joined(separator: ", ")) within \(patience): may this login (--mqtt-username) write them? The broker's ACL decides"
        }
    }
}

/// What `fleet` does on the site's broker, without printing: a reader subscribed to what it
/// follows, the retained messages let settle, and a node's retirement. On any
/// ``SiteTransport``: libmosquitto's client for the command, the in-memory broker in tests.
package struct FleetSession: Sendable {
    package let configuration: MQTTConfiguration
    package let connect: SiteConnector
    /// How long retained messages are given to arrive after the subscription (`--wait`).
    package let settleTime: Duration
    /// How long the broker is given to take the subscription, and to show each cleared topic.
    package let patience: Duration

    package init(configuration: MQTTConfiguration, connect: @escaping SiteConnector, settleTime: Duration, patience: Duration = FleetLimits.connectPatience) {
        self.configuration = configuration
        self.connect = connect
        self.settleTime = settleTime
        self.patience = patience
    }

    /// A client on `filters`, connected and subscribed, each event given to `take` and rung on
    /// `changed`; `state` says whether the subscription is in, and the last failure to connect.
    package func subscribed(
        filters: [String], changed: Doorbell, take: @escaping @Sendable (MQTTEvent) -> Void,
        state: () -> (subscribed: Bool, lastFailure: String?)
    ) throws(FleetFailure) -> any SiteTransport {
        let client: any SiteTransport
        do throws(MQTTError) {
            client = try connect(configuration) { event in
                take(event)
                changed.ringAlways()
            }
            for filter in filters { _ = try client.subscribe(filter, qos: .atLeastOnce) }
            try client.start()
        } catch {
            throw .client(error)
        }
        let connectBy = ContinuousClock.now + patience
        while !state().subscribed {
            guard ContinuousClock.now < connectBy else {
                // Read before the stop, whose own `disconnected` event would replace it.
                let lastFailure = state().lastFailure
                client.stop()
                throw .unreachable(broker: "\(configuration.broker)", patience: patience, lastFailure: lastFailure)
            }
            changed.sleep(nanoseconds: FleetLimits.pollNanoseconds) { state().subscribed }
        }
        return client
    }

    /// Retained messages come right after the subscription: waits ``settleTime`` for them.
    package func settle(_ changed: Doorbell) {
        let until = ContinuousClock.now + settleTime
        while ContinuousClock.now < until { changed.sleep(nanoseconds: FleetLimits.pollNanoseconds) { false } }
    }

    /// Finds what the broker keeps of the node, refuses an online node, clears the rest and
    /// waits for the broker to show each topic cleared; the topics cleared.
    package func retire(_ retirement: Guarded<FleetRetirement>) throws(FleetFailure) -> [String] {
        let changed = Doorbell()
        let topics = retirement.withLock { $0.topics }
        let client = try subscribed(
            filters: topics, changed: changed,
            take: { event in retirement.withLock { $0.take(event) } },
            state: { retirement.withLock { ($0.subscribed, $0.lastFailure) } })
        defer { client.stop() }
        settle(changed)
        let (node, online, toClear) = retirement.withLock { ($0.node, $0.isOnline, $0.toClear) }
        guard !online else { throw .online(node: node, availability: retirement.withLock { $0.availabilityTopic }) }
        guard !toClear.isEmpty else { throw .nothingKept(node: node, lookedAt: topics) }
        retirement.withLock { $0.startClearing() }
        do throws(MQTTError) {
            for topic in toClear { _ = try client.publish(topic: topic, payload: [], qos: .atLeastOnce, retain: true) }
        } catch {
            throw .clearing(node: node, error)
        }
        let clearedBy = ContinuousClock.now + patience
        while !retirement.withLock({ $0.unconfirmed.isEmpty }), ContinuousClock.now < clearedBy {
            changed.sleep(nanoseconds: FleetLimits.pollNanoseconds) { retirement.withLock { $0.unconfirmed.isEmpty } }
        }
        let unconfirmed = retirement.withLock { $0.unconfirmed }
        guard unconfirmed.isEmpty else { throw .notCleared(unconfirmed, patience: patience) }
        return toClear
    }
}
