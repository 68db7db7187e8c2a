import ControllerHost
import ControllerMQTT

/// `fleet --retire NODE`: what the broker keeps of a node that is gone for good — its retained
/// availability, state, counters, health, inputs and claim, and its Home Assistant device — cleared, so neither
/// `fleet` nor Home Assistant shows it again. A node that is online is not retired: it would
/// announce itself again on its next connection.
///
/// Each cleared topic is checked: the retirement subscribes to the topics it clears, so the
/// broker's own empty message on each says it was taken (a broker drops a publish its ACL
/// refuses without a word under MQTT 3.1.1).
package struct FleetRetirement {
    package let node: String
    /// The topics cleared, the availability last: until the end, `fleet` still lists the node.
    package let topics: [String]
    package let availabilityTopic: String

    package private(set) var subscribed = false
    package private(set) var lastFailure: String?
    /// The retained messages found, by topic, before anything is cleared.
    private(set) var found: [String: [UInt8]] = [:]
    /// The topics whose clearing came back from the broker.
    private(set) var cleared: Set<String> = []
    private var clearing = false

    /// `node` is any node `fleet` lists (``SiteTopics/listedLevelProblem(_:prefix:)``), refused
    /// naming `--retire`. A node id's Home Assistant device is cleared too; a level that is no
    /// node id was never a daemon's, so it has none.
    package init<App: ControllerApplication>(_: App.Type, node: String, prefix: String, discoveryPrefix: String) throws(SiteOptionError) {
        let site = try SiteTopics(prefix: prefix, listedNode: node, option: "--retire")
        self.node = site.node
        availabilityTopic = site.availability
        var topics = site.retained
        if SiteTopics.nodeIDProblem(node) == nil {
            let discovery = SiteDiscovery<App>(prefix: try SiteTopics.checkedDiscoveryPrefix(discoveryPrefix), topics: site)
            topics.insert(discovery.retirement.topic, at: topics.count - 1)
        }
        self.topics = topics
    }

    /// Whether the node said it is online, and has not said otherwise since.
    package var isOnline: Bool { found[availabilityTopic].map { String(decoding: $0, as: UTF8.self) == SitePayload.online } ?? false }

    /// The topics that held a retained message: the ones to clear, in `topics`' order.
    package var toClear: [String] { topics.filter { found[$0] != nil } }

    /// The topics cleared but not yet seen cleared.
    package var unconfirmed: [String] { toClear.filter { !cleared.contains($0) } }

    package mutating func startClearing() { clearing = true }

    package mutating func take(_ event: MQTTEvent) {
        switch event {
        case .subscribed: subscribed = true
        case .connectFailed(let error, _): lastFailure = "\(error)"
        case .message(let message) where topics.contains(message.topic):
            if clearing {
                if message.payload.isEmpty { cleared.insert(message.topic) }
            } else if message.payload.isEmpty {
                found[message.topic] = nil
            } else {
                found[message.topic] = message.payload
            }
        default: return
        }
    }
}
