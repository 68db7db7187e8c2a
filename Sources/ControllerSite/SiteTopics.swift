import ControllerHost
import ControllerMQTT

/// The topics of one controller (a node) on the site's broker, under the site's prefix; the
/// table of docs/reference/mqtt.md ("Topics and payloads") says what each carries.
///
/// One grammar for each identifier, here, read by every writer and reader of it: a node id
/// (``nodeIDProblem(_:)``: what `run --mqtt-node` takes and a daemon publishes under), a
/// listed node level (``listedLevelProblem(_:prefix:)``: what `fleet` lists and `fleet
/// --retire` clears, node ids and levels no daemon of this runtime would publish under alike),
/// and a prefix (``prefixProblem(_:)``: `--mqtt-prefix` and `--mqtt-discovery-prefix`, for
/// `run` and `fleet` alike). Each refusal names the option it was given under.
package struct SiteTopics: Sendable, Equatable {
    /// The level that stands for every node: `PREFIX/all/command` reaches each controller.
    package static let everyNode = "all"
    package static let defaultPrefix = "controllerfsm"
    /// Home Assistant's own default.
    package static let defaultDiscoveryPrefix = "homeassistant"
    /// The longest node id and prefix, in bytes: topic names stay short next to MQTT's limit.
    package static let maxNodeBytes = 64
    package static let maxPrefixBytes = 128

    package let prefix: String
    package let node: String

    package var availability: String { leaf("availability") }
    package var state: String { leaf("state") }
    package var counters: String { leaf("counters") }
    package var events: String { leaf("events") }
    /// Phase, outbox backlog and problems (retained): see ``SitePayload/Health``.
    package var health: String { leaf("health") }
    /// Each level and condition input, on or off (retained): see ``SitePayload/Inputs``.
    package var inputs: String { leaf("inputs") }
    package var command: String { leaf("command") }
    package var result: String { leaf("result") }
    /// Who publishes as the node (retained): see ``SitePayload/Claim``.
    package var claim: String { leaf("claim") }
    package var siteCommand: String { "\(prefix)/\(Self.everyNode)/command" }
    /// Every node's topic `name`, for a client that watches the whole site (`fleet`).
    package func everyNodes(_ name: String) -> String { "\(prefix)/+/\(name)" }

    /// The retained topics of a node, as `fleet --retire` clears them (the availability last:
    /// until the end, `fleet` still lists the node).
    package var retained: [String] { [state, counters, health, inputs, claim, availability] }

    /// The leaf names of ``retained``: the longest bounds how long a listed level may be.
    package static let retainedLeaves = ["state", "counters", "health", "inputs", "claim", "availability"]

    private func leaf(_ name: String) -> String { "\(prefix)/\(node)/\(name)" }

    /// The topics of a daemon's node: `node` a node id (``nodeIDProblem(_:)``), `prefix` a
    /// prefix (``prefixProblem(_:)``), each refused naming `nodeOption` or `--mqtt-prefix`.
    package init(prefix: String, node: String, nodeOption: String = "--mqtt-node") throws(SiteOptionError) {
        if let problem = Self.nodeIDProblem(node) { throw .invalidNode(option: nodeOption, node: node, problem: problem) }
        try self.init(checkedPrefix: prefix, node: node)
    }

    /// The topics of a node `fleet` lists, a node id or not (``listedLevelProblem(_:prefix:)``),
    /// for `fleet --retire`; refused naming `option`.
    package init(prefix: String, listedNode node: String, option: String) throws(SiteOptionError) {
        if let problem = Self.prefixProblem(prefix) { throw .invalidPrefix(option: "--mqtt-prefix", prefix: prefix, problem: problem) }
        if let problem = Self.listedLevelProblem(node, prefix: prefix) { throw .invalidNode(option: option, node: node, problem: problem) }
        self.prefix = prefix
        self.node = node
    }

    /// The prefix checked first: a node's refusal may then name the prefix it is under.
    private init(checkedPrefix prefix: String, node: String) throws(SiteOptionError) {
        if let problem = Self.prefixProblem(prefix) { throw .invalidPrefix(option: "--mqtt-prefix", prefix: prefix, problem: problem) }
        self.prefix = prefix
        self.node = node
    }

    /// What a node id is, in words, for the refusals.
    package static let nodeIDGrammar = "a node id is 1 to \(maxNodeBytes) bytes of letters, digits, '-', '_' and '.'"

    /// Why `text` is not a node id, or nil: one topic level of 1 to ``maxNodeBytes`` ASCII
    /// letters, digits, `-`, `_` and `.` (so it is also a Home Assistant object id once dots are
    /// replaced), not the reserved ``everyNode``. Said without quoting `text` (the refusal does).
    package static func nodeIDProblem(_ text: some StringProtocol) -> String? {
        if text.isEmpty { return "is empty: \(nodeIDGrammar)" }
        if let scalar = text.unicodeScalars.first(where: { !isLevelCharacter($0) }) {
            return "holds \(quotedScalar(scalar)): \(nodeIDGrammar)"
        }
        if text.utf8.count > maxNodeBytes { return "is \(text.utf8.count) bytes: \(nodeIDGrammar)" }
        if text == everyNode { return "is the topic level that reaches every node (\(everyNode)/command), not one node's" }
        return nil
    }

    /// Why `text` is no level `fleet` lists under `prefix` and `fleet --retire` clears, or nil:
    /// any level of a topic a client may publish (no `/`, no `+` or `#`, no NUL, every retained
    /// topic of the node at most ``MQTTLimits/maxTopicBytes``) but ``everyNode``. A level that
    /// is no node id passes (a retained `PREFIX/gate 7/availability` someone else left).
    package static func listedLevelProblem(_ text: some StringProtocol, prefix: String) -> String? {
        if let scalar = text.unicodeScalars.first(where: { "/+#\0".unicodeScalars.contains($0) }) {
            return scalar == "/" ? "holds '/', which separates topic levels: one node is one level"
                : "holds \(quotedScalar(scalar)), which no topic a node publishes under holds"
        }
        let longest = maxListedLevelBytes(prefix: prefix)
        if text.utf8.count > longest { return "is \(text.utf8.count) bytes: a topic under \(prefix.shown)/ leaves a node's level at most \(longest)" }
        if text == everyNode { return "is the topic level that reaches every node (\(everyNode)/command), not one node's" }
        return nil
    }

    /// The longest level whose retained topics under `prefix` are all publishable.
    package static func maxListedLevelBytes(prefix: String) -> Int {
        MQTTLimits.maxTopicBytes - prefix.utf8.count - 2 - (retainedLeaves.map(\.utf8.count).max() ?? 0)
    }

    /// What a prefix is, in words, for the refusals.
    package static let prefixGrammar = "a prefix is levels of letters, digits, '-', '_' and '.' joined by '/', at most \(maxPrefixBytes) bytes"

    /// Why `text` is not a prefix (`--mqtt-prefix`, `--mqtt-discovery-prefix`), or nil: one or
    /// more levels of the node id's characters joined by `/`, at most ``maxPrefixBytes``.
    package static func prefixProblem(_ text: String) -> String? {
        if text.isEmpty { return "is empty: \(prefixGrammar)" }
        if let scalar = text.unicodeScalars.first(where: { $0 != "/" && !isLevelCharacter($0) }) {
            return "holds \(quotedScalar(scalar)): \(prefixGrammar)"
        }
        if text.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "has an empty level (a '/' at an end, or two together): \(prefixGrammar)"
        }
        if text.utf8.count > maxPrefixBytes { return "is \(text.utf8.count) bytes: \(prefixGrammar)" }
        return nil
    }

    /// `'x'`, `' '`, `'\u{1B}'`: one character of a refused identifier, quoted as every message
    /// quotes text from outside.
    private static func quotedScalar(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "'\(String(scalar).shown)' (U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex))"
    }

    /// The node id a controller takes when none is given: its board's name and the host's, each
    /// escaped (``SiteIdentity``: letters, digits and `-` stay, `_` is `__`, any other byte `_xx`)
    /// and joined by `.`, so two different (board, host) pairs never share a node id. One longer
    /// than ``maxNodeBytes`` keeps its start and ends in `..` and a 64-bit hash of both names
    /// (an uncut id never holds `..`): a long board name no longer loses the host.
    package static func defaultNode(board: String, host: String) -> String {
        let full = SiteIdentity.escaped(board, keeping: SiteIdentity.isWordByte)
            + (host.isEmpty ? "" : "." + SiteIdentity.escaped(host, keeping: SiteIdentity.isWordByte))
        guard full.utf8.count > maxNodeBytes else { return full }
        let hash = SiteIdentity.hex(SiteIdentity.hash([board, host]))
        return String(decoding: full.utf8.prefix(maxNodeBytes - 2 - hash.count), as: UTF8.self) + ".." + hash
    }

    /// `prefix` as Home Assistant's discovery prefix (`--mqtt-discovery-prefix`, for `run` and
    /// `fleet --retire` alike), or the error naming the option.
    package static func checkedDiscoveryPrefix(_ prefix: String) throws(SiteOptionError) -> String {
        if let problem = prefixProblem(prefix) { throw .invalidPrefix(option: "--mqtt-discovery-prefix", prefix: prefix, problem: problem) }
        return prefix
    }

    private static func isLevelCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
    }

    /// The node's MQTT client id: the start of the node id (its letters, digits and `-`, at most
    /// 11) for the broker's log, `.`, and 11 base-62 digits of a 64-bit hash of the daemon's name,
    /// the prefix and the node id: 23 bytes at most (MQTT 3.1.1's guaranteed length), different
    /// for one node under two prefixes or two daemons, and stable across restarts (the broker
    /// keeps the session under it).
    package static func clientID(daemon: String, prefix: String, node: String) -> String {
        let readable = String(decoding: node.utf8.filter(SiteIdentity.isWordByte).prefix(11), as: UTF8.self)
        return (readable.isEmpty ? "node" : readable) + "." + SiteIdentity.base62(SiteIdentity.hash([daemon, prefix, node]))
    }
}
