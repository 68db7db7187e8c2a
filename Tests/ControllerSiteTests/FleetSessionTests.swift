import ControllerFSM
import ControllerMQTT
@testable import ControllerSite
import ControllerTestSupport
import Testing
import Turnstile

/// `fleet`'s reading and retiring on the in-memory broker: what the broker keeps of a node, an
/// online node refused, the clearing confirmed topic by topic, an access list that refuses it,
/// and a broker that is not there — with no mosquitto. The session blocks (fleet is a command
/// of its own, not a task), so each test runs it off the pool (``offThePool(_:)``).
@Suite("The fleet on the in-memory broker: listing, retiring, refusals")
struct FleetSessionTests {
    typealias App = TurnstileApplication
    static let prefix = "nodes"

    static func session(_ broker: InMemoryBroker, patience: Duration = .seconds(5)) throws -> FleetSession {
        FleetSession(
            configuration: try InMemoryBrokerTests.configuration("fleet-test"), connect: broker.connector,
            settleTime: .milliseconds(100), patience: patience)
    }

    /// What a node that has stopped leaves on its broker: its retained topics, offline.
    static func leftBehind(by node: String, on broker: InMemoryBroker, availability: String = SitePayload.offline) throws -> SiteTopics {
        let topics = try SiteTopics(prefix: prefix, node: node)
        for topic in topics.retained { broker.inject(topic: topic, payload: Array("{}".utf8), retain: true) }
        broker.inject(topic: topics.availability, payload: Array(availability.utf8), retain: true)
        return topics
    }

    /// `body`, which blocks, on a thread of its own: its value, or the fleet's refusal.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws(FleetFailure) -> T) async throws -> Result<T, FleetFailure> {
        try await offThePool { () -> Result<T, FleetFailure> in
            do throws(FleetFailure) { return .success(try body()) } catch { return .failure(error) }
        }
    }

    static func retirement(_ node: String) throws -> Guarded<FleetRetirement> {
        Guarded(try FleetRetirement(App.self, node: node, prefix: prefix, discoveryPrefix: SiteTopics.defaultDiscoveryPrefix))
    }

    @Test("a node that is gone: every topic it kept is cleared, and the broker is seen to clear each")
    func retiresAnOfflineNode() async throws {
        let broker = InMemoryBroker()
        let topics = try Self.leftBehind(by: "gate1", on: broker)
        let other = try Self.leftBehind(by: "gate2", on: broker)
        let (session, retirement) = (try Self.session(broker), try Self.retirement("gate1"))
        let cleared = try await Self.offPool { () throws(FleetFailure) in try session.retire(retirement) }.get()
        #expect(Set(cleared) == Set(topics.retained), "\(cleared)")
        #expect(cleared.last == topics.availability, "the availability goes last: until then the fleet still lists the node")
        for topic in topics.retained { #expect(broker.retained(topic) == nil, "\(topic) still kept") }
        for topic in other.retained { #expect(broker.retained(topic) != nil, "another node's \(topic) was cleared") }
    }

    @Test("a node that says it is online is not retired, and nothing of it is cleared")
    func refusesAnOnlineNode() async throws {
        let broker = InMemoryBroker()
        let topics = try Self.leftBehind(by: "gate1", on: broker, availability: SitePayload.online)
        let (session, retirement) = (try Self.session(broker), try Self.retirement("gate1"))
        let outcome = try await Self.offPool { () throws(FleetFailure) in try session.retire(retirement) }
        #expect {
            try outcome.get()
        } throws: { error in
            guard case FleetFailure.online(let node, _) = error else { return false }
            return node == "gate1" && "\(error)".contains("stop its daemon first")
        }
        for topic in topics.retained { #expect(broker.retained(topic) != nil, "\(topic) was cleared") }
    }

    @Test("a node the broker keeps nothing of: refused, naming the topics looked at")
    func refusesAnUnknownNode() async throws {
        let broker = InMemoryBroker()
        _ = try Self.leftBehind(by: "gate1", on: broker)
        let (session, retirement) = (try Self.session(broker), try Self.retirement("gate9"))
        let outcome = try await Self.offPool { () throws(FleetFailure) in try session.retire(retirement) }
        #expect {
            try outcome.get()
        } throws: { error in
            guard case FleetFailure.nothingKept(let node, let topics) = error else { return false }
            return node == "gate9" && topics.contains("nodes/gate9/availability") && "\(error)".contains("`fleet` lists the nodes")
        }
    }

    @Test("an access list that refuses the clearing: the topics not seen cleared are named, with the login to check")
    func accessListRefusesTheClearing() async throws {
        let broker = InMemoryBroker { clientID, topic, write in !(write && clientID == "fleet-test" && topic.hasSuffix("/availability")) }
        let topics = try Self.leftBehind(by: "gate1", on: broker)
        let (session, retirement) = (try Self.session(broker, patience: .milliseconds(500)), try Self.retirement("gate1"))
        let outcome = try await Self.offPool { () throws(FleetFailure) in try session.retire(retirement) }
        #expect {
            try outcome.get()
        } throws: { error in
            guard case FleetFailure.notCleared(let unconfirmed, _) = error else { return false }
            return unconfirmed == [topics.availability] && "\(error)".contains("--mqtt-username")
        }
        #expect(broker.retained(topics.availability) != nil)
    }

    @Test("a broker that is not there: refused after the patience, with its last refusal")
    func unreachableBroker() async throws {
        let broker = InMemoryBroker()
        broker.goDown()
        let changed = Doorbell()
        let state = Guarded(FleetView(prefix: Self.prefix))
        let session = try Self.session(broker, patience: .milliseconds(300))
        let outcome = try await Self.offPool { () throws(FleetFailure) in
            try session.subscribed(
                filters: state.withLock { $0.filters }, changed: changed, take: { event in state.withLock { $0.take(event) } },
                state: { state.withLock { ($0.subscribed, $0.lastFailure) } })
        }
        #expect {
            try outcome.get()
        } throws: { error in
            guard case FleetFailure.unreachable(_, _, let lastFailure) = error else { return false }
            return lastFailure?.contains("down") == true
        }
    }

    @Test("the listing: every node the broker keeps, each with its availability")
    func listsTheNodes() async throws {
        let broker = InMemoryBroker()
        _ = try Self.leftBehind(by: "gate1", on: broker)
        _ = try Self.leftBehind(by: "gate2", on: broker, availability: SitePayload.online)
        let session = try Self.session(broker)
        let changed = Doorbell()
        let view = Guarded(FleetView(prefix: Self.prefix))
        let client = try await Self.offPool { () throws(FleetFailure) in
            let client = try session.subscribed(
                filters: view.withLock { $0.filters }, changed: changed, take: { event in view.withLock { $0.take(event) } },
                state: { view.withLock { ($0.subscribed, $0.lastFailure) } })
            session.settle(changed)
            return client
        }.get()
        defer { client.stop() }
        let nodes = view.withLock { $0.nodes }
        #expect(Set(nodes.keys) == ["gate1", "gate2"], "\(nodes.keys)")
    }
}
