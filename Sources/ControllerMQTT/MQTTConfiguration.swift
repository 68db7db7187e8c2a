/// MQTT's three delivery guarantees. The outbox publishes with ``atLeastOnce``: the broker's
/// PUBACK (the `published` event) says it has the message.
public enum MQTTQoS: Int32, Sendable, CaseIterable {
    case atMostOnce = 0
    case atLeastOnce = 1
    case exactlyOnce = 2
}

/// The message the broker publishes for the client when its connection ends without a
/// DISCONNECT (a crash, a power cut, a cable pulled, keepalive running out). A `stop` sends
/// DISCONNECT, so no will.
public struct MQTTWill: Equatable, Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}

/// The files of an `mqtts://` connection, PEM-encoded. Without a CA file the system's CA
/// certificates verify the broker; with one, only that CA does. A client certificate and its key
/// go together, and need the CA file (libmosquitto takes the three at once). The key must not be
/// encrypted: a daemon has nobody to ask for its password.
public struct MQTTTLSFiles: Equatable, Sendable {
    public var caFile: String?
    public var certificateFile: String?
    public var keyFile: String?

    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    public var isEmpty: Bool { caFile == nil && certificateFile == nil && keyFile == nil }
}

/// How long to wait before connecting again: `first` after a connection that was lost or a
/// first failure, doubling after each failed attempt up to `maximum`. Bounds and defaults in
/// ``MQTTLimits``.
public struct MQTTReconnectPolicy: Equatable, Sendable {
    public var first: Duration
    public var maximum: Duration

    public init(first: Duration = MQTTLimits.defaultFirstReconnectDelay, maximum: Duration = MQTTLimits.defaultMaxReconnectDelay) {
        self.first = first
        self.maximum = maximum
    }
}

/// Everything the client needs to connect. The password is not here but in a file
/// (`passwordFile`, read when the client is made), so it is in no configuration file, command
/// line or log.
public struct MQTTConfiguration: Equatable, Sendable {
    public var broker: MQTTBrokerURL
    /// Identifies the client's session at the broker: stable across restarts, unique per broker.
    public var clientID: String
    public var username: String?
    /// A file holding the password: its first line (a final newline is not part of it).
    public var passwordFile: String?
    public var tls: MQTTTLSFiles
    public var keepAliveSeconds: UInt16
    /// False (the default): a persistent session. The broker keeps the client's subscriptions
    /// and queues QoS 1 and 2 messages for it while it is away, until it connects again with the
    /// same `clientID`.
    public var cleanSession: Bool
    public var will: MQTTWill?
    public var reconnect: MQTTReconnectPolicy
    /// The most of each received payload the client takes (1 to
    /// ``MQTTLimits/maxReceivedPayloadBytes``): a longer one arrives cut, saying so
    /// (``MQTTMessage/isCut``). A reader with a smaller bound of its own (`fleet`) asks for it.
    public var maxReceivedPayloadBytes: Int
    /// The library opened at run time; tests name a missing one.
    public var libraryFile: String

    public init(
        broker: MQTTBrokerURL, clientID: String, username: String? = nil, passwordFile: String? = nil,
        tls: MQTTTLSFiles = MQTTTLSFiles(), keepAliveSeconds: UInt16 = MQTTLimits.defaultKeepAliveSeconds,
        cleanSession: Bool = false, will: MQTTWill? = nil, reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy(),
        maxReceivedPayloadBytes: Int = MQTTLimits.maxReceivedPayloadBytes, libraryFile: String = MQTTLibrary.defaultFile
    ) {
        self.broker = broker
        self.clientID = clientID
        self.username = username
        self.passwordFile = passwordFile
        self.tls = tls
        self.keepAliveSeconds = keepAliveSeconds
        self.cleanSession = cleanSession
        self.will = will
        self.reconnect = reconnect
        self.maxReceivedPayloadBytes = maxReceivedPayloadBytes
        self.libraryFile = libraryFile
    }

    /// Checks every setting against its bounds, without touching a file.
    public func validate() throws(MQTTError) {
        let id = clientID.utf8
        guard !id.isEmpty, id.count <= MQTTLimits.maxClientIDBytes,
            id.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E })
        else {
            throw .invalidConfiguration(
                setting: "client id '\(clientID.shown)'",
                problem: "must be 1 to \(MQTTLimits.maxClientIDBytes) letters, digits, '-', '_' or '.' "
                    + "(and stable: the broker finds the session by it)"
            )
        }
        if let username {
            guard !username.isEmpty, username.utf8.count <= MQTTLimits.maxUsernameBytes, !username.utf8.contains(0) else {
                throw .invalidConfiguration(setting: "user name", problem: "must be 1 to \(MQTTLimits.maxUsernameBytes) bytes, without NUL")
            }
        }
        if passwordFile != nil && username == nil {
            throw .invalidConfiguration(setting: "password file", problem: "MQTT sends a password only with a user name: set the user name too")
        }
        guard (MQTTLimits.minKeepAliveSeconds...MQTTLimits.maxKeepAliveSeconds).contains(keepAliveSeconds) else {
            throw .invalidConfiguration(
                setting: "keepalive \(keepAliveSeconds) s",
                problem: "must be \(MQTTLimits.minKeepAliveSeconds) to \(MQTTLimits.maxKeepAliveSeconds) seconds"
            )
        }
        let delays = MQTTLimits.minReconnectDelay...MQTTLimits.maxReconnectDelay
        guard delays.contains(reconnect.first), delays.contains(reconnect.maximum), reconnect.first <= reconnect.maximum else {
            throw .invalidConfiguration(
                setting: "reconnect delays \(reconnect.first) to \(reconnect.maximum)",
                problem: "each must be \(MQTTLimits.minReconnectDelay) to \(MQTTLimits.maxReconnectDelay), the first no longer than the longest"
            )
        }
        guard (1...MQTTLimits.maxReceivedPayloadBytes).contains(maxReceivedPayloadBytes) else {
            throw .invalidConfiguration(
                setting: "received payload bound \(maxReceivedPayloadBytes) bytes",
                problem: "must be 1 to \(MQTTLimits.maxReceivedPayloadBytes) bytes"
            )
        }
        if !broker.usesTLS && !tls.isEmpty {
            throw .invalidConfiguration(
                setting: "TLS files",
                problem: "are set but the broker URL \(broker) is plain MQTT: use mqtts:// for TLS"
            )
        }
        if (tls.certificateFile == nil) != (tls.keyFile == nil) {
            throw .invalidConfiguration(setting: "TLS client certificate", problem: "needs both the certificate file and its key file")
        }
        if tls.certificateFile != nil && tls.caFile == nil {
            throw .invalidConfiguration(setting: "TLS client certificate", problem: "needs the CA file as well (libmosquitto takes them together)")
        }
        if let will {
            try MQTTTopic.checkPublishable(will.topic)
            guard will.payload.count <= MQTTLimits.maxPayloadBytes else {
                throw .payloadTooLarge(bytes: will.payload.count, limit: MQTTLimits.maxPayloadBytes)
            }
        }
    }
}

/// Topic and filter rules (MQTT 3.1.1 §4.7), checked before libmosquitto sees them so the
/// error names the topic.
enum MQTTTopic {
    static func checkPublishable(_ topic: String) throws(MQTTError) {
        try checkCommon(topic)
        if topic.contains(where: { $0 == "+" || $0 == "#" }) {
            throw .invalidTopic(topic: topic, problem: "'+' and '#' are for subscriptions; a message's topic has none")
        }
        if topic.hasPrefix("$") {
            throw .invalidTopic(topic: topic, problem: "topics beginning with '$' are the broker's own")
        }
    }

    static func checkFilter(_ filter: String) throws(MQTTError) {
        try checkCommon(filter)
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#") && (level != "#" || index != levels.count - 1) {
                throw .invalidTopic(topic: filter, problem: "'#' must be a whole level, and the last one")
            }
            if level.contains("+") && level != "+" {
                throw .invalidTopic(topic: filter, problem: "'+' must be a whole level")
            }
        }
    }

    private static func checkCommon(_ topic: String) throws(MQTTError) {
        guard !topic.isEmpty else { throw .invalidTopic(topic: topic, problem: "is empty") }
        guard topic.utf8.count <= MQTTLimits.maxTopicBytes else {
            throw .invalidTopic(topic: String(topic.prefix(64)) + "…", problem: "is longer than \(MQTTLimits.maxTopicBytes) bytes")
        }
        guard !topic.utf8.contains(0) else { throw .invalidTopic(topic: topic, problem: "contains a NUL character") }
    }
}
