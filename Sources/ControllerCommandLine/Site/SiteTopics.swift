/// The topics of one controller (a node) on the site's broker, under the site's prefix; the
/// README's "MQTT topics" table says what each carries.
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
    var command: String { leaf("command") }
    var result: String { leaf("result") }
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

    /// The node id a controller takes when none is given: its board's name and the host's,
    /// with anything a topic level cannot hold replaced by `-`.
    static func defaultNode(board: String, host: String) -> String {
        let raw = host.isEmpty ? board : "\(board)-\(host)"
        let cleaned = String(raw.unicodeScalars.map { isLevelCharacter($0) ? Character($0) : "-" })
        return String(cleaned.prefix(maxNodeBytes))
    }

    /// One or more levels joined by `/`, at most ``maxPrefixBytes``.
    static func isPrefix(_ text: String) -> Bool {
        text.utf8.count <= maxPrefixBytes && text.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { isLevel($0) }
    }

    static func isLevel(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(isLevelCharacter)
    }

    private static func isLevelCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
    }

    /// The node's MQTT client id: the node id itself when MQTT 3.1.1's 23 bytes hold it, else
    /// its start and a hash of the whole (stable across restarts: the broker keeps the
    /// session under it).
    static func clientID(node: String, limit: Int) -> String {
        guard node.utf8.count > limit else { return node }
        var hash: UInt32 = 2_166_136_261  // FNV-1a
        for byte in node.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let suffix = String(hash, radix: 16)
        let padded = String(repeating: "0", count: 8 - suffix.count) + suffix
        return String(node.prefix(limit - 9)) + "-" + padded
    }
}
