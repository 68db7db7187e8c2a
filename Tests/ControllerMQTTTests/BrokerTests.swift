@_spi(Testing) import ControllerMQTT
import ControllerTestSupport
import Foundation
import Testing

/// Against Debian's mosquitto (scripts/mqtt-broker.sh), one broker per test. Serialized: each
/// starts a broker, and the machine running them may be busy.
@Suite("Against a broker", .serialized, .enabled(if: Broker.enabled, "mosquitto, openssl or libmosquitto is not installed"))
struct BrokerTests {
    /// The wait before the next attempt of the client that `noBroker` stops: far longer than
    /// `stopBound`, so a `stop` that waited it out fails (with the tests' usual 0.2–2 s delays
    /// such a stop could pass, and a loaded machine could fail a correct one).
    static let longReconnectDelay: Duration = .seconds(60)
    /// How soon `stop` returns while the client waits to try again: it wakes the wait at once,
    /// microseconds; the rest is room for a thread descheduled on a loaded machine.
    static let stopBound: Duration = .seconds(10)

    @Test("connects with the password file and says so")
    func connects() async throws {
        try await Broker.with { broker in
            let (client, log) = try MQTTClient.logged(broker.configuration(clientID: "node1-connects"))
            try client.start()
            defer { client.stop() }
            let connected = await log.first { $0.isConnected }
            #expect(connected == .connected(sessionPresent: false), "events: \(log.all)\nbroker: \(broker.log)")
            #expect(client.isConnected)
            // mosquitto 2.0 (bookworm's, trixie's) logs MQTT 3.1.1 as p2, its own number for it;
            // 2.1 (sid's, in the aarch64 lane's root) logs the protocol level, 4.
            #expect(["p2", "p4"].contains { broker.log.contains("as node1-connects (\($0), c0, k10, u'node1')") },
                    "MQTT 3.1.1 (p2, or p4 from mosquitto 2.1), persistent (c0): \(broker.log)")
        }
    }

    @Test("a wrong password is refused, naming the broker, the refusal and the file")
    func wrongPassword() async throws {
        try await Broker.with { broker in
            let passwordFile = broker.file("wrong.password")
            let (client, log) = try MQTTClient.logged(broker.configuration(passwordFile: passwordFile, clientID: "node1-wrong"))
            try client.start()
            defer { client.stop() }
            let failure = try #require(await log.first { $0.connectFailure != nil }?.connectFailure, "events: \(log.all)")
            guard case let .refused(url, code, _, _) = failure else {
                Issue.record("expected a refusal, got \(failure)")
                return
            }
            #expect(url == "mqtt://127.0.0.1:\(broker.plainPort)")
            #expect(code == 5)
            let text = failure.description
            #expect(text.contains("mqtt://127.0.0.1:\(broker.plainPort)"))
            #expect(text.contains("not authorised"))
            #expect(text.contains(passwordFile))
            #expect(text.contains("'node1'"))
            #expect(!client.isConnected)
            // It keeps trying, with the delay doubling.
            let second = await log.first { event in
                if case .connectFailed(_, let retry) = event { return retry == .milliseconds(400) }
                return false
            }
            #expect(second != nil, "events: \(log.all)")
            #expect(log.count { $0.isConnected } == 0)
        }
    }

    @Test("a QoS 1 message is acknowledged by its identifier")
    func publishAcknowledged() async throws {
        try await Broker.with { broker in
            let (client, log) = try MQTTClient.logged(broker.configuration(clientID: "node1-publish"))
            try client.start()
            defer { client.stop() }
            try #require(await log.first { $0.isConnected } != nil, "events: \(log.all)")
            let first = try client.publish(topic: "nodes/node1/events", payload: Array("one".utf8), qos: .atLeastOnce)
            let second = try client.publish(topic: "nodes/node1/events", payload: Array("two".utf8), qos: .atLeastOnce)
            #expect(first != second)
            #expect(await log.first { $0 == .published(first) } != nil, "events: \(log.all)")
            #expect(await log.first { $0 == .published(second) } != nil, "events: \(log.all)")
            #expect(client.unacknowledgedCount == 0)
        }
    }

    @Test("subscribes, and receives its own message")
    func subscribeAndReceive() async throws {
        try await Broker.with { broker in
            let (client, log) = try MQTTClient.logged(broker.configuration(clientID: "node1-echo"))
            // Before start: sent once connected.
            #expect(try client.subscribe("nodes/node1/echo/#", qos: .atLeastOnce) == nil)
            try client.start()
            defer { client.stop() }
            let subscribed = await log.first { $0.subscriptionID != nil }
            guard case let .subscribed(_, granted)? = subscribed else {
                Issue.record("no SUBACK: \(log.all)")
                return
            }
            #expect(granted == [.atLeastOnce])
            let payload: [UInt8] = [0, 1, 2, 0xFF, 0x80]
            try client.publish(topic: "nodes/node1/echo/bytes", payload: payload, qos: .atLeastOnce)
            let message = await log.first { $0.receivedMessage != nil }?.receivedMessage
            #expect(message == MQTTMessage(topic: "nodes/node1/echo/bytes", payload: payload, qos: .atLeastOnce, retained: false))
        }
    }

    @Test("a received payload past the client's bound arrives cut to it, saying its length; one within it whole")
    func receivedPayloadBound() async throws {
        try await Broker.with { broker in
            var configuration = broker.configuration(clientID: "node1-bounded")
            configuration.maxReceivedPayloadBytes = Self.receivedBound
            let (client, log) = try MQTTClient.logged(configuration)
            try client.subscribe("nodes/node1/bound/#")
            try client.start()
            defer { client.stop() }
            try #require(await log.first { $0.subscriptionID != nil } != nil, "events: \(log.all)")
            let long = (0..<MQTTLimits.maxPayloadBytes).map { UInt8(truncatingIfNeeded: $0) }
            try client.publish(topic: "nodes/node1/bound/long", payload: long)
            try client.publish(topic: "nodes/node1/bound/short", payload: Array(long.prefix(Self.receivedBound)))
            let messages = { log.all.compactMap(\.receivedMessage) }
            _ = await log.first { _ in messages().count == 2 }
            let cut = messages().first { $0.topic.hasSuffix("long") }
            #expect(cut?.payload == Array(long.prefix(Self.receivedBound)) && cut?.payloadBytes == long.count && cut?.isCut == true)
            let whole = messages().first { $0.topic.hasSuffix("short") }
            #expect(whole?.payload.count == Self.receivedBound && whole?.payloadBytes == Self.receivedBound && whole?.isCut == false)
        }
    }

    static let receivedBound = 1_000

    @Test("MQTT 3.1.1: a subscription the ACL refuses is granted all the same, and delivers nothing")
    func subscriptionRefused() async throws {
        try await Broker.with(Self.subscribeOutsideTheACL)
    }

    // A function of its own: as a closure, Swift 6.3's region analysis crashes on it.
    private static func subscribeOutsideTheACL(_ broker: Broker) async throws {
        let (nosy, nosyLog) = try MQTTClient.logged(broker.configuration(clientID: "node1-nosy"))
        try nosy.subscribe("nodes/node2/#")
        try nosy.start()
        defer { nosy.stop() }
        let (reader, readerLog) = try MQTTClient.logged(broker.configuration(user: "reader", clientID: "reader-node2"))
        try reader.subscribe("nodes/node2/#")
        try reader.start()
        defer { reader.stop() }
        let (node2, node2Log) = try MQTTClient.logged(broker.configuration(user: "node2", clientID: "node2"))
        try node2.start()
        defer { node2.stop() }
        let granted = await nosyLog.first { $0.subscriptionID != nil }
        // 3.1.1 has no way to say "not authorised" in a SUBACK (MQTT 5 has 0x87).
        #expect(granted == .subscribed(MQTTMessageID(1), granted: [.atLeastOnce]), "events: \(nosyLog.all)")
        try #require(await readerLog.first { $0.subscriptionID != nil } != nil)
        try #require(await node2Log.first { $0.isConnected } != nil)
        try node2.publish(topic: "nodes/node2/count", payload: Array("7".utf8))
        #expect(await readerLog.first { $0.receivedMessage?.topic == "nodes/node2/count" } != nil, "events: \(readerLog.all)")
        // The broker has routed the message (the reader has it); the nosy one's copy, if the
        // ACL let it through, comes within the window.
        try await Task.sleep(for: EventLog.quietWindow)
        #expect(nosyLog.count { $0.receivedMessage != nil } == 0, "events: \(nosyLog.all)")
    }

    @Test("MQTT 3.1.1: a QoS 1 message the ACL refuses is acknowledged all the same, and dropped")
    func aclRefusalLooksDelivered() async throws {
        try await Broker.with { broker in
            let (node, nodeLog) = try MQTTClient.logged(broker.configuration(clientID: "node1-listens"))
            try node.subscribe("nodes/node1/#")
            try node.start()
            defer { node.stop() }
            let (reader, readerLog) = try MQTTClient.logged(broker.configuration(user: "reader", clientID: "reader-writes"))
            try reader.start()
            defer { reader.stop() }
            try #require(await nodeLog.first { $0.subscriptionID != nil } != nil)
            try #require(await readerLog.first { $0.isConnected } != nil)
            let id = try reader.publish(topic: "nodes/node1/forged", payload: Array("x".utf8), qos: .atLeastOnce)
            #expect(await readerLog.first { $0 == .published(id) } != nil, "the broker's PUBACK: \(readerLog.all)")
            // A message the node may publish goes through, after the forged one would have.
            try node.publish(topic: "nodes/node1/real", payload: Array("y".utf8))
            let received = await nodeLog.first { $0.receivedMessage?.topic == "nodes/node1/real" }
            #expect(received != nil)
            #expect(nodeLog.count { $0.receivedMessage?.topic == "nodes/node1/forged" } == 0)
        }
    }

    @Test("TLS with the broker's CA and a client certificate")
    func tlsConnects() async throws {
        try await Broker.with { broker in
            let tls = MQTTTLSFiles(caFile: broker.file("ca.crt"), certificateFile: broker.file("node1.crt"), keyFile: broker.file("node1.key"))
            let (client, log) = try MQTTClient.logged(broker.configuration(url: broker.tlsURL, tls: tls, clientID: "node1-tls"))
            try client.start()
            defer { client.stop() }
            #expect(await log.first { $0.isConnected } != nil, "events: \(log.all)\nbroker: \(broker.log)")
            let id = try client.publish(topic: "nodes/node1/tls", payload: Array("over TLS".utf8))
            #expect(await log.first { $0 == .published(id) } != nil)
        }
    }

    @Test("TLS with another CA is refused, naming the CA file and OpenSSL's reason")
    func tlsWrongCA() async throws {
        try await Broker.with { broker in
            let caFile = broker.file("other-ca.crt")
            let tls = MQTTTLSFiles(caFile: caFile, certificateFile: broker.file("node1.crt"), keyFile: broker.file("node1.key"))
            let (client, log) = try MQTTClient.logged(broker.configuration(url: broker.tlsURL, tls: tls, clientID: "node1-otherca"))
            try client.start()
            defer { client.stop() }
            let failure = try #require(await log.first { $0.connectFailure != nil }?.connectFailure, "events: \(log.all)")
            let text = failure.description
            #expect(text.contains("mqtts://127.0.0.1:\(broker.tlsPort)"), "\(text)")
            #expect(text.contains(caFile), "\(text)")
            #expect(text.contains("certificate verify failed"), "\(text)")
            // And it keeps trying (libmosquitto's own thread would have given up).
            let later = await log.first { _ in log.count { $0.connectFailure != nil } >= 3 }
            #expect(later != nil, "events: \(log.all)")
            #expect(log.count { $0.isConnected } == 0)
        }
    }

    @Test("TLS without the CA file: the system's CAs do not know the broker's")
    func tlsWithoutCA() async throws {
        try await Broker.with { broker in
            let (client, log) = try MQTTClient.logged(broker.configuration(url: broker.tlsURL, clientID: "node1-noca"))
            try client.start()
            defer { client.stop() }
            let failure = try #require(await log.first { $0.connectFailure != nil }?.connectFailure, "events: \(log.all)")
            #expect(failure.description.contains("certificate verify failed"), "\(failure)")
            #expect(failure.description.contains("give its CA file"), "\(failure)")
            #expect(log.count { $0.isConnected } == 0)
        }
    }

    @Test("a broker that is not there: connection refused, named, and tried again")
    func noBroker() async throws {
        try await Broker.with { broker in
            // The broker's TLS port number, on a loopback address nothing listens on.
            let url = try MQTTBrokerURL.parse("mqtt://127.0.0.2:\(broker.tlsPort)")
            let (client, log) = try MQTTClient.logged(broker.configuration(url: url, clientID: "node1-nobroker"))
            try client.start()
            let failure = try #require(await log.first { $0.connectFailure != nil }?.connectFailure, "events: \(log.all)")
            #expect(failure.description == "cannot connect to the broker mqtt://127.0.0.2:\(broker.tlsPort): Connection refused")
            #expect(await log.first { _ in log.count { $0.connectFailure != nil } >= 2 } != nil)
            client.stop()
            // stop() ends the wait between attempts at once: a client whose next attempt is
            // `longReconnectDelay` away stops within `stopBound`.
            var configuration = broker.configuration(url: url, clientID: "node1-nobroker-waits")
            configuration.reconnect = MQTTReconnectPolicy(first: Self.longReconnectDelay, maximum: Self.longReconnectDelay)
            let (waiting, waitingLog) = try MQTTClient.logged(configuration)
            try waiting.start()
            try #require(await waitingLog.first { $0.connectFailure != nil } != nil, "events: \(waitingLog.all)")
            let started = ContinuousClock.now
            waiting.stop()
            #expect(ContinuousClock.now - started < Self.stopBound)
            #expect(!client.isConnected)
            #expect(throws: MQTTError.stopped) { try client.publish(topic: "nodes/node1/x", payload: []) }
            #expect(throws: MQTTError.stopped) { try client.start() }
        }
    }

    @Test("the last will: published when the connection drops without DISCONNECT, not after stop")
    func lastWill() async throws {
        try await Broker.with { broker in
            let (reader, readerLog) = try MQTTClient.logged(broker.configuration(user: "reader", clientID: "reader-will"))
            try reader.subscribe("nodes/node1/status")
            try reader.start()
            defer { reader.stop() }
            try #require(await readerLog.first { $0.subscriptionID != nil } != nil)

            let will = MQTTWill(topic: "nodes/node1/status", payload: Array("offline".utf8), qos: .atLeastOnce, retain: false)
            let (node, nodeLog) = try MQTTClient.logged(broker.configuration(will: will, clientID: "node1-will"))
            try node.start()
            try #require(await nodeLog.first { $0.isConnected } != nil)
            node.dropConnectionForTesting()
            let message = await readerLog.first { $0.receivedMessage != nil }?.receivedMessage
            #expect(message == MQTTMessage(topic: "nodes/node1/status", payload: Array("offline".utf8), qos: .atLeastOnce, retained: false))
            // The node noticed, and connected again on its own, to its persistent session.
            #expect(await nodeLog.first { $0.isDisconnected } != nil)
            let again = await nodeLog.first { $0 == .connected(sessionPresent: true) }
            #expect(again != nil, "events: \(nodeLog.all)")

            // A stop sends DISCONNECT: no will.
            node.stop()
            #expect(nodeLog.all.last == .disconnected(nil), "events: \(nodeLog.all)")
            // "Client node1-will disconnected." (mosquitto 2.0; 2.1 puts the address after the
            // id), not "…disconnected: connection closed by client." (a dropped connection).
            let clean = { (log: String) in
                log.split(separator: "\n").contains { $0.contains("Client node1-will ") && $0.hasSuffix(" disconnected.") }
            }
            let deadline = ContinuousClock.now + EventLog.patience
            while !clean(broker.log) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(clean(broker.log), "\(broker.log)")
            // A will would be sent as the broker closes the connection, which it has logged.
            try await Task.sleep(for: EventLog.quietWindow)
            #expect(readerLog.count { $0.receivedMessage != nil } == 1, "events: \(readerLog.all)")
        }
    }

    @Test("QoS 1 while disconnected: accepted, sent after reconnecting, acknowledged; QoS 0 refused")
    func publishWhileDisconnected() async throws {
        try await Broker.with { broker in
            let (reader, readerLog) = try MQTTClient.logged(broker.configuration(user: "reader", clientID: "reader-queue"))
            try reader.subscribe("nodes/node1/queued")
            try reader.start()
            defer { reader.stop() }
            try #require(await readerLog.first { $0.subscriptionID != nil } != nil)

            let configuration = broker.configuration(clientID: "node1-queue", firstReconnectDelay: .seconds(1))
            let (node, nodeLog) = try MQTTClient.logged(configuration)
            try node.start()
            defer { node.stop() }
            try #require(await nodeLog.first { $0.isConnected } != nil)
            node.dropConnectionForTesting()
            try #require(await nodeLog.first { $0.isDisconnected } != nil)
            #expect(!node.isConnected)

            let id = try node.publish(topic: "nodes/node1/queued", payload: Array("kept".utf8), qos: .atLeastOnce)
            #expect(node.unacknowledgedCount == 1)
            #expect(throws: MQTTError.notConnected(broker: "mqtt://127.0.0.1:\(broker.plainPort)")) {
                try node.publish(topic: "nodes/node1/queued", payload: Array("lost".utf8), qos: .atMostOnce)
            }
            #expect(nodeLog.count { $0 == .published(id) } == 0)

            #expect(await nodeLog.first { $0 == .published(id) } != nil, "events: \(nodeLog.all)")
            #expect(node.unacknowledgedCount == 0)
            let message = await readerLog.first { $0.receivedMessage != nil }?.receivedMessage
            #expect(message?.payload == Array("kept".utf8))
            #expect(readerLog.count { $0.receivedMessage?.payload == Array("lost".utf8) } == 0)
        }
    }

    @Test("topics and payloads are checked before the library sees them")
    func publishChecks() async throws {
        try await Broker.with { broker in
            let (client, _) = try MQTTClient.logged(broker.configuration(clientID: "node1-checks"))
            #expect(throws: MQTTError.notStarted) { try client.publish(topic: "nodes/node1/x", payload: []) }
            try client.start()
            defer { client.stop() }
            #expect(throws: MQTTError.self) { try client.publish(topic: "nodes/+/x", payload: []) }
            #expect(throws: MQTTError.self) { try client.publish(topic: "", payload: []) }
            #expect(throws: MQTTError.self) { try client.publish(topic: "$SYS/x", payload: []) }
            #expect(throws: MQTTError.payloadTooLarge(bytes: MQTTLimits.maxPayloadBytes + 1, limit: MQTTLimits.maxPayloadBytes)) {
                try client.publish(topic: "nodes/node1/x", payload: [UInt8](repeating: 0, count: MQTTLimits.maxPayloadBytes + 1))
            }
            #expect(throws: MQTTError.self) { try client.subscribe("nodes/#/x") }
            #expect(throws: MQTTError.self) { try client.subscribe("nodes/no+de") }
            #expect(throws: MQTTError.alreadyStarted) { try client.start() }
        }
    }
}
