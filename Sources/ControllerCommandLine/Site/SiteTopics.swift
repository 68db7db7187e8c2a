import ArgumentParser
/// The topics of one controller (a node) on the site's broker, under the site's prefix; the
/// table of docs/reference/mqtt.md ("Topics and payloads") says what each carries.
struct SiteTopics: Sendable, Equatable {
    /// The level that stands for every node: `PREFIX/all/command` reaches each controller.
    static let everyNode = "all"
    static let defaultPrefix = "controllerfsm"
    /// Home Assistant's own default.
    static let defaultDiscoveryPrefix = "homeassistant"
    /// The longest node id and prefix, in bytes: topic names stay short next to MQTT's limit.
    static let maxNodeBytes = 64
    static let maxPrefixBytes = 128

    let prefix: String
    let node: String

    var availability: String { leaf("availability") }
    var state: String { leaf("state") }
    var counters: String { leaf("counters") }
    var events: String { leaf("events") }
    /// Phase, outbox backlog and problems (retained): see ``SitePayload/Health``.
    var health: String { leaf("health") }
    /// Each level and condition input, on or off (retained): see ``SitePayload/Inputs``.
    var inputs: String { leaf("inputs") }
    var command: String { leaf("command") }
    var result: String { leaf("result") }
    /// Who publishes as the node (retained): see ``SitePayload/Claim``.
    var claim: String { leaf("claim") }
    var siteCommand: String { "\(prefix)/\(Self.everyNode)/command" }
    /// Every node's topic `name`, for a client that watches the whole site (`fleet`).
    func everyNodes(_ name: String) -> String { "\(prefix)/+/\(name)" }

    private func leaf(_ name: String) -> String { "\(prefix)/\(node)/\(name)" }

    /// The node and prefix checked: a node id is one topic level of letters, digits, `-`, `_`
    /// and `.` (so it is also a Home Assistant object id once dots are replaced), not the
    /// reserved `all`; a prefix is one or more such levels joined by `/`.
    init(prefix: String, node: String) throws(SiteOptionError) {
        guard Self.isLevel(node), node.utf8.count <= Self.maxNodeBytes else {
            throw .invalidNode(node, problem: "must be 1 to \(Self.maxNodeBytes) letters, digits, '-', '_' or '.'")
        }
        guard node != Self.everyNode else {
            throw .invalidNode(node, problem: "'\(Self.everyNode)' is the topic level that reaches every node")
        }
        guard Self.isPrefix(prefix) else {
            throw .invalidPrefix(prefix, problem: "must be levels of letters, digits, '-', '_' or '.' joined by '/', at most \(Self.maxPrefixBytes) bytes")
        }
        self.prefix = prefix
        self.node = node
    }

    /// The node id a controller takes when none is given: its board's name and the host's, each
    /// escaped (``SiteIdentity``: letters, digits and `-` stay, `_` is `__`, any other byte `_xx`)
    /// and joined by `.`, so two different (board, host) pairs never share a node id. One longer
    /// than ``maxNodeBytes`` keeps its start and ends in `..` and a 64-bit hash of both names
    /// (an uncut id never holds `..`): a long board name no longer loses the host.
    static func defaultNode(board: String, host: String) -> String {
        let full = SiteIdentity.escaped(board, keeping: SiteIdentity.isWordByte)
            + (host.isEmpty ? "" : "." + SiteIdentity.escaped(host, keeping: SiteIdentity.isWordByte))
        guard full.utf8.count > maxNodeBytes else { return full }
        let hash = SiteIdentity.hex(SiteIdentity.hash([board, host]))
        return String(decoding: full.utf8.prefix(maxNodeBytes - 2 - hash.count), as: UTF8.self) + ".." + hash
    }

    /// One or more levels joined by `/`, at most ``maxPrefixBytes``.
    static func isPrefix(_ text: String) -> Bool {
        text.utf8.count <= maxPrefixBytes && text.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { isLevel($0) }
    }

    /// `prefix` as Home Assistant's discovery prefix (`--mqtt-discovery-prefix`, for `run` and
    /// `fleet --retire` alike), or the error naming the option.
    static func checkedDiscoveryPrefix(_ prefix: String) throws -> String {
        guard isPrefix(prefix) else {
            throw ValidationError("--mqtt-discovery-prefix '\(prefix)' must be levels of letters, digits, '-', '_' or '.' joined by '/'")
        }
        return prefix
    }

    static func isLevel(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(isLevelCharacter)
    }

    private static func isLevelCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
    }

    /// The node's MQTT client id: the start of the node id (its letters, digits and `-`, at most
    /// 11) for the broker's log, `.`, and 11 base-62 digits of a 64-bit hash of the daemon's name,
    /// the prefix and the node id: 23 bytes at most (MQTT 3.1.1's guaranteed length), different
    /// for one node under two prefixes or two daemons, and stable across restarts (the broker
    /// keeps the session under it).
    static func clientID(daemon: String, prefix: String, node: String) -> String {
        let readable = String(decoding: node.utf8.filter(SiteIdentity.isWordByte).prefix(11), as: UTF8.self)
        return (readable.isEmpty ? "node" : readable) + "." + SiteIdentity.base62(SiteIdentity.hash([daemon, prefix, node]))
    }
}
