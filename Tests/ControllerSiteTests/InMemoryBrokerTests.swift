import ControllerFSM
import ControllerMQTT
@testable import ControllerSite
import ControllerTestSupport
import Testing

/// The in-memory broker keeps what the site relies on of MQTT and mosquitto: a test that passes
/// on it must mean what it would on a real broker.
@Suite("The in-memory broker: retained messages, wills, sessions, QoS 1, the access list, takeovers")
struct InMemoryBrokerTests {
    /// What a connection told its owner, in order.
    final class Events: Sendable {
        private let events = Guarded<[MQTTEvent]>([])
        func take(_ event: MQTTEvent) { events.withLock { $0.append(event) } }
        var all: [MQTTEvent] { events.withLock { $0 } }
        var messages: [MQTTMessage] { all.compactMap { if case .message(let message) = $0 { message } else { nil } } }
        func payloads(on topic: String) -> [String] {
            messages.filter { $0.topic == topic }.map { String(decoding: $0.payload, as: UTF8.self) }
        }
        var connections: Int { all.filter { if case .connected = $0 { true } else { false } }.count }
        var disconnections: [MQTTError?] { all.compactMap { if case .disconnected(let error) = $0 { .some(error) } else { nil } } }
    }

    static func configuration(_ clientID: String, cleanSession: Bool = true, will: MQTTWill? = nil) throws -> MQTTConfiguration {
        MQTTConfiguration(
            broker: try MQTTBrokerURL.parse("mqtt://127.0.0.1:1883", allowPlaintextToRemoteHost: false), clientID: clientID, username: nil,
            passwordFile: nil, tls: MQTTTLSFiles(caFile: nil, certificateFile: nil, keyFile: nil), cleanSession: cleanSession, will: will)
    }

    static func connect(_ broker: InMemoryBroker, _ clientID: String, cleanSession: Bool = true, will: MQTTWill? = nil) throws -> (any SiteTransport, Events) {
        let events = Events()
        let connection = try broker.connector(try configuration(clientID, cleanSession: cleanSession, will: will)) { events.take($0) }
        return (connection, events)
    }

    @Test("topic filters: + one level, # this level and below")
    func filters() {
        #expect(InMemoryBroker.matches(filter: "a/+/c", topic: "a/b/c"))
        #expect(!InMemoryBroker.matches(filter: "a/+/c", topic: "a/b/d"))
        #expect(!InMemoryBroker.matches(filter: "a/+", topic: "a/b/c"))
        #expect(InMemoryBroker.matches(filter: "a/#", topic: "a/b/c"))
        #expect(InMemoryBroker.matches(filter: "a/#", topic: "a"))
        #expect(!InMemoryBroker.matches(filter: "a/b", topic: "a/b/c"))
        #expect(InMemoryBroker.matches(filter: "+/+", topic: "/x"))
    }

    @Test("a retained message reaches a later subscription, marked retained; an empty one removes it; every publication is acknowledged")
    func retained() throws {
        let broker = InMemoryBroker()
        let (writer, written) = try Self.connect(broker, "writer")
        try writer.start()
        let id = try writer.publish(topic: "site/n1/state", payload: Array("open".utf8), qos: .atLeastOnce, retain: true)
        let (reader, read) = try Self.connect(broker, "reader")
        try reader.start()
        _ = try reader.subscribe("site/+/state", qos: .atLeastOnce)
        broker.settle()
        #expect(read.messages == [MQTTMessage(topic: "site/n1/state", payload: Array("open".utf8), qos: .atLeastOnce, retained: true)])
        #expect(written.all.contains(.published(id)))
        _ = try writer.publish(topic: "site/n1/state", payload: [], qos: .atLeastOnce, retain: true)
        #expect(broker.retained("site/n1/state") == nil)
        // A live subscription gets the empty message itself, not marked retained.
        broker.settle()
        #expect(read.messages.last == MQTTMessage(topic: "site/n1/state", payload: [], qos: .atLeastOnce, retained: false))
    }

    @Test("a client's subscriptions are in effect again before it is told it is connected, so nothing it publishes then overtakes them")
    func resubscribedBeforeConnected() throws {
        let broker = InMemoryBroker()
        let events = Events()
        let connection = InMemoryConnection(broker: broker, configuration: try Self.configuration("claimer"), events: { events.take($0) })
        // Wanted before any connection, as the publisher asks for its claim topic.
        #expect(try connection.subscribe("nodes/node1/claim", qos: .atLeastOnce) == nil)
        broker.inject(topic: "nodes/node1/claim", payload: Array("other".utf8), retain: true)
        #expect(broker.connect(connection))
        // libmosquitto's client sends its SUBSCRIBEs before it reports the connection, so a claim
        // its owner publishes as soon as it reads `.connected` comes back to it.
        #expect(connection.filters == ["nodes/node1/claim"], "in effect when connect returns, not after")
        broker.settle()
        #expect(events.payloads(on: "nodes/node1/claim") == ["other"], "the retained claim, after the acknowledgement: \(events.all)")
        guard case .connected = events.all.first else {
            Issue.record("told it is connected first: \(events.all)")
            return
        }
    }

    @Test("a dropped connection's will is published (and retained); a stopped one's is not; the dropped client connects again")
    func wills() throws {
        let broker = InMemoryBroker()
        let will = MQTTWill(topic: "site/n1/availability", payload: Array("offline".utf8))
        let (node, events) = try Self.connect(broker, "n1", will: will)
        try node.start()
        broker.drop(clientID: "n1")
        broker.settle()
        #expect(broker.retained("site/n1/availability") == Array("offline".utf8))
        #expect(events.connections == 2, "\(events.all)")
        #expect(events.disconnections.count == 1 && events.disconnections[0] != nil)

        let (other, _) = try Self.connect(broker, "n2", will: MQTTWill(topic: "site/n2/availability", payload: Array("offline".utf8)))
        try other.start()
        other.stop()
        broker.settle()
        #expect(broker.retained("site/n2/availability") == nil)
    }

    @Test("a persistent session keeps the subscriptions and what came while the client was away; QoS 1 published while away is sent on reconnecting")
    func sessionsAndRedelivery() throws {
        let broker = InMemoryBroker()
        let (node, events) = try Self.connect(broker, "n1", cleanSession: false)
        _ = try node.subscribe("site/n1/command", qos: .atLeastOnce)
        try node.start()
        broker.goDown()
        let waiting = try node.publish(topic: "site/n1/events", payload: Array("7".utf8), qos: .atLeastOnce, retain: false)
        #expect(broker.published(on: "site/n1/events").isEmpty, "nothing reaches a broker that is down")
        broker.comeUp()
        broker.inject(topic: "site/n1/command", payload: Array("status".utf8))
        broker.settle()
        #expect(broker.published(on: "site/n1/events").map(\.payload) == [Array("7".utf8)])
        #expect(events.all.contains(.published(waiting)))
        #expect(events.payloads(on: "site/n1/command") == ["status"])

        // Away (stopped) with its session: a command waits for the next connection of that id.
        node.stop()
        broker.inject(topic: "site/n1/command", payload: Array("stats".utf8))
        let (again, later) = try Self.connect(broker, "n1", cleanSession: false)
        try again.start()
        broker.settle()
        #expect(later.all.first == .connected(sessionPresent: true))
        #expect(later.payloads(on: "site/n1/command") == ["stats"])
    }

    @Test("what the broker holds is bounded: a session's queue as mosquitto's max_queued_messages, the publication log by its oldest")
    func bounds() throws {
        let broker = InMemoryBroker()
        let (node, _) = try Self.connect(broker, "n1", cleanSession: false)
        _ = try node.subscribe("site/n1/command", qos: .atLeastOnce)
        try node.start()
        broker.settle()
        node.stop()
        let sent = InMemoryBroker.queuedPerSession + 5
        for index in 0..<sent { broker.inject(topic: "site/n1/command", payload: Array("\(index)".utf8)) }
        let (again, later) = try Self.connect(broker, "n1", cleanSession: false)
        try again.start()
        broker.settle()
        let received = later.payloads(on: "site/n1/command")
        #expect(received.count == InMemoryBroker.queuedPerSession, "\(received.count) of \(sent) delivered")
        #expect(received.first == "0", "the oldest are kept, the newest dropped, as mosquitto drops them")

        for index in 0..<InMemoryBroker.loggedPublications { broker.inject(topic: "site/log", payload: Array("\(index)".utf8)) }
        let logged = broker.published(on: "#")
        #expect(logged.count <= InMemoryBroker.loggedPublications)
        #expect(logged.last.map { String(decoding: $0.payload, as: UTF8.self) } == "\(InMemoryBroker.loggedPublications - 1)", "the newest is kept")
    }

    @Test("the access list: a refused publication is acknowledged and dropped; a refused subscription hears nothing")
    func accessList() throws {
        let broker = InMemoryBroker { clientID, topic, write in
            !(clientID == "n1" && topic.hasSuffix("/claim"))
        }
        let (node, events) = try Self.connect(broker, "n1")
        try node.start()
        _ = try node.subscribe("site/n1/claim", qos: .atLeastOnce)
        let id = try node.publish(topic: "site/n1/claim", payload: Array("mine".utf8), qos: .atLeastOnce, retain: true)
        broker.inject(topic: "site/n1/claim", payload: Array("other".utf8), retain: true)
        broker.settle()
        #expect(events.all.contains(.published(id)))
        #expect(broker.retained("site/n1/claim") == Array("other".utf8))
        #expect(events.messages.isEmpty)
    }

    @Test("a second connection with a client id ends the first (a takeover), which connects again and takes it back")
    func takeover() throws {
        let broker = InMemoryBroker()
        let (first, firstEvents) = try Self.connect(broker, "n1")
        try first.start()
        let (second, secondEvents) = try Self.connect(broker, "n1")
        try second.start()
        broker.settle()
        #expect(firstEvents.disconnections.count == 1)
        #expect(secondEvents.disconnections.isEmpty)
        broker.retryWaiting()
        broker.settle()
        #expect(firstEvents.connections == 2, "libmosquitto's client connects again after its back-off")
        #expect(secondEvents.disconnections.count == 1, "and takes the id back: the pattern of a takeover")
        first.stop()
        second.stop()
    }
}
