import ControllerFSMSim
import ControllerTestSupport
@testable import ControllerSite
import ControllerMQTT
import Foundation
import Testing
import Turnstile

/// Every identity the site derives from a name (the default node id,
/// the MQTT client id, Home Assistant's discovery topics, `unique_id`s, device identifiers and
/// default entity ids) is injective, checked on generated members of the class: random strings
/// of every kind of byte (punctuation, `_` `.` `/` `#` and space, unicode, control characters),
/// names at and past the 64-byte limit, one node under several prefixes, and the
/// names most likely to collide. `SITE_IDENTITY_SEED` repeats a run.
@Suite("the site's identities never collide")
struct SiteIdentityTests {
    static let seed = ProcessInfo.processInfo.environment["SITE_IDENTITY_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)

    /// The characters names are made of: a node id's, the punctuation the old mappings folded
    /// together, the escape itself, unicode and control characters.
    static let pieces: [String] = Array("abcxyzABCZ0189-_.").map(String.init)
        + [" ", "/", "#", "+", "%", ":", "'", "\"", "\\", "é", "É", "日本", "🚗", "\u{0}", "\n", "\u{1B}", "_5f", "_2e", "__", ".."]

    static func name(_ random: inout SplitMix64, maxPieces: UInt64 = 12) -> String {
        (0..<random.next(in: 0...maxPieces)).map { _ in pieces[Int(random.next(in: 0...UInt64(pieces.count - 1)))] }.joined()
    }

    /// A valid node id or prefix level: letters, digits, `-`, `_`, `.`.
    static func level(_ random: inout SplitMix64, maxBytes: UInt64) -> String {
        let alphabet = Array("abgtAG019-_.")
        let count = random.next(in: 1...maxBytes)
        return String((0..<count).map { _ in alphabet[Int(random.next(in: 0...UInt64(alphabet.count - 1)))] })
    }

    /// Names at and past the node id's 64 bytes, sharing their starts.
    static let longNames: [String] = {
        let base = String(repeating: "north-entrance-", count: 5)
        return (60...70).map { String(base.prefix($0)) } + [base + "a", base + "b", base + "_", base + "."]
    }()

    @Test("the escape: decoding gives back every input, so no two inputs share an output")
    func escapeRoundTrips() {
        var random = SplitMix64(seed: Self.seed)
        var outputs: [String: String] = [:]
        for _ in 0..<5_000 {
            let input = Self.name(&random)
            let output = SiteIdentity.escaped(input, keeping: SiteIdentity.isWordByte)
            #expect(SiteIdentity.unescaped(output) == input, "seed \(Self.seed): \(input.debugDescription) → \(output)")
            #expect(output.utf8.allSatisfy { SiteIdentity.isWordByte($0) || $0 == UInt8(ascii: "_") }, "\(output)")
            if let earlier = outputs.updateValue(input, forKey: output) {
                #expect(earlier == input, "seed \(Self.seed): \(earlier.debugDescription) and \(input.debugDescription) both → \(output)")
            }
        }
    }

    @Test("the default node id: different (board, host) pairs never share one, a long board keeps the host, each is a valid node id")
    func defaultNodeIsInjective() throws {
        var random = SplitMix64(seed: Self.seed)
        var pairs: [(String, String)] = [("gate 1", "host"), ("gate/1", "host"), ("gate#1", "host"), ("gate-1", "host"), ("gate", "1-host"),
                                         ("gate.1", "host"), ("gate_1", "host"), ("gate", "1.host"), ("gate", ""), ("gate.", "")]
        for board in Self.longNames { pairs += [(board, "host-a"), (board, "host-b"), (board, "")] }
        for _ in 0..<3_000 { pairs.append((Self.name(&random), random.next() % 4 == 0 ? "" : Self.name(&random, maxPieces: 5))) }
        var owners: [String: (String, String)] = [:]
        for (board, host) in pairs where !board.isEmpty {
            let node = SiteTopics.defaultNode(board: board, host: host)
            if node != SiteTopics.everyNode {
                #expect(throws: Never.self, "seed \(Self.seed): \(board.debugDescription) on \(host.debugDescription) → \(node)") {
                    _ = try SiteTopics(prefix: "site", node: node)
                }
            }
            if let earlier = owners.updateValue((board, host), forKey: node) {
                #expect(earlier == (board, host), "seed \(Self.seed): \(earlier) and \((board, host)) are both node \(node)")
            }
        }
    }

    @Test("the client id: different (daemon, prefix, node) never share one, each is at most 23 bytes a broker must take")
    func clientIDIsInjective() throws {
        var random = SplitMix64(seed: Self.seed)
        var triples: [(String, String, String)] = []
        for node in ["gate1", "gate.1", "gate_1", "gate-1"] + Self.longNames.map({ String($0.prefix(64)) }) {
            for prefix in ["controllerfsm", "site-a", "site-b", "a/b"] {
                for daemon in ["turnstiled", "barrierd"] { triples.append((daemon, prefix, node)) }
            }
        }
        for _ in 0..<3_000 {
            triples.append(("turnstiled", Self.level(&random, maxBytes: 6), Self.level(&random, maxBytes: random.next() % 2 == 0 ? 64 : 8)))
        }
        var owners: [String: String] = [:]
        for (daemon, prefix, node) in triples {
            let id = SiteTopics.clientID(daemon: daemon, prefix: prefix, node: node)
            #expect(id.utf8.count <= MQTTLimits.maxClientIDBytes, "\(id)")
            let configuration = MQTTConfiguration(broker: try MQTTBrokerURL.parse("mqtt://127.0.0.1"), clientID: id)
            #expect(throws: Never.self) { try configuration.validate() }
            let key = "\(daemon) \(prefix) \(node)"
            if let earlier = owners.updateValue(key, forKey: id) {
                #expect(earlier == key, "seed \(Self.seed): \(earlier) and \(key) share client id \(id)")
            }
        }
    }

    /// Home Assistant's entity ids: lowercase letters, digits and single `_`, neither starting
    /// nor ending in `_`, after the component and a dot (its `valid_entity_id`).
    static func isEntityID(_ text: String, component: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == component, let slug = parts.last, !slug.isEmpty else { return false }
        return slug.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
            && !slug.hasPrefix("_") && !slug.hasSuffix("_") && !slug.contains("__")
    }

    static func isDiscoveryLevel(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { SiteIdentity.isWordByte($0) || $0 == UInt8(ascii: "_") }
    }

    @Test("Home Assistant discovery: two nodes (gate.1 and gate_1, one node under two prefixes, random ones) never share a device topic, unique_id, device or default_entity_id; each component has default_entity_id, not object_id")
    func discoveryIsInjective() throws {
        var random = SplitMix64(seed: Self.seed)
        var nodes: [(String, String)] = [("site", "gate.1"), ("site", "gate_1"), ("site", "gate-1"), ("site", "gate1"), ("site", "Gate1"),
                                         ("site-a", "gate1"), ("site-b", "gate1"), ("site/a", "gate1"), ("site", "a.gate1"), ("site_a", "gate1")]
        for _ in 0..<150 {
            let prefix = (0..<random.next(in: 1...3)).map { _ in Self.level(&random, maxBytes: 5) }.joined(separator: "/")
            nodes.append((prefix, Self.level(&random, maxBytes: random.next() % 3 == 0 ? 64 : 6)))
        }
        var seen = Set<String>()
        nodes = nodes.filter { $0.1 != "all" && seen.insert("\($0.0) \($0.1)").inserted }
        var topics: [String: String] = [:], uniqueIDs: [String: String] = [:], devices: [String: String] = [:], entityIDs: [String: String] = [:]
        func claim(_ table: inout [String: String], _ key: String, by owner: String, _ what: String) {
            if let earlier = table.updateValue(owner, forKey: key), earlier != owner {
                Issue.record("seed \(Self.seed): \(what) \(key) of both \(earlier) and \(owner)")
            }
        }
        for (prefix, node) in nodes {
            let discovery = SiteDiscovery<TurnstileApplication>(prefix: "homeassistant", topics: try SiteTopics(prefix: prefix, node: node))
            let owner = "\(prefix) \(node)"
            let topic = discovery.deviceTopic
            claim(&topics, topic, by: owner, "device topic")
            let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
            #expect(levels.count == 4 && levels[0] == "homeassistant" && levels[1] == "device" && levels[3] == "config"
                    && Self.isDiscoveryLevel(levels[2]), "\(topic)")
            let config = try #require(try JSONSerialization.jsonObject(with: Data(discovery.messages[0].payload)) as? [String: Any])
            let device = try #require((config["dev"] as? [String: Any])?["identifiers"] as? [String])
            #expect(device.count == 1)
            claim(&devices, device[0], by: owner, "device identifier")
            let components = try #require(config["cmps"] as? [String: [String: Any]])
            #expect(components.count == 21, "\(owner): \(components.count)")
            for (object, component) in components {
                #expect(Self.isDiscoveryLevel(object), "\(object)")
                #expect(component["object_id"] == nil, "\(object): object_id is deprecated")
                let kind = try #require(component["p"] as? String)
                let uniqueID = try #require(component["unique_id"] as? String, "\(object)")
                claim(&uniqueIDs, uniqueID, by: "\(owner) \(kind)/\(object)", "unique_id")
                let entityID = try #require(component["default_entity_id"] as? String, "\(object)")
                #expect(Self.isEntityID(entityID, component: kind), "\(object): \(entityID)")
                claim(&entityIDs, entityID, by: "\(owner) \(kind)/\(object)", "default_entity_id")
            }
        }
    }

    @Test("a claim read from the broker: random bytes and hostile fields never pass as one or reach the log raw; two claims are always ordered one way")
    func claimsReadFromTheBroker() throws {
        var random = SplitMix64(seed: Self.seed)
        for _ in 0..<2_000 {
            let bytes = (0..<random.next(in: 0...200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if let claim = SitePayload.Claim.decode(bytes) { Issue.record("seed \(Self.seed): \(bytes) read as \(claim)") }
            let instance = (0..<32).map { _ in Array("0123456789abcdef")[Int(random.next() % 16)] }
            let fields: [String: Any] = [
                "instance": random.next() % 5 == 0 ? Self.name(&random) : String(instance), "host": Self.name(&random, maxPieces: 40),
                "pid": Int64(bitPattern: random.next()), "since": Int64(bitPattern: random.next()), "app": Self.name(&random),
            ]
            let payload = Array(try JSONSerialization.data(withJSONObject: fields))
            guard let claim = SitePayload.Claim.decode(payload) else {
                #expect(fields["instance"] as? String != String(instance), "seed \(Self.seed): \(fields)")
                continue
            }
            #expect(claim.instance == String(instance))
            #expect(claim.host.utf8.allSatisfy { SiteIdentity.isWordByte($0) || $0 == UInt8(ascii: "_") } && claim.host.utf8.count <= 64 * 12, "\(claim.host)")
            var other = claim
            other.instance = String(instance.reversed())
            other.since = Int64(bitPattern: random.next() % 3 == 0 ? UInt64(bitPattern: claim.since) : random.next())
            if other.instance != claim.instance {
                #expect(claim.precedes(other) != other.precedes(claim), "exactly one of two claims yields: \(claim) \(other)")
            }
        }
    }
}
