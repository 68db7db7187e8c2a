/// The MQTT client's bounds and defaults, each with its reason. The protocol is MQTT 3.1.1
/// (see ``MQTTClient``), whose own limits are wider; these are what a controller needs, so a
/// mistake (a runaway payload, a publisher that never stops while the broker is away) is refused
/// with a message instead of growing the daemon's memory.
public enum MQTTLimits {
    /// The broker's port for `mqtt://` and `mqtts://` URLs that name none (IANA's registrations).
    public static let defaultPlainPort: UInt16 = 1883
    public static let defaultTLSPort: UInt16 = 8883

    /// The longest host name a URL may give (DNS's limit on a full name).
    public static let maxHostBytes = 253
    /// The longest label (the part between dots) of a host name (DNS's limit).
    public static let maxHostLabelBytes = 63

    /// A topic (or subscription filter) longer than this is refused. MQTT allows 65,535 bytes;
    /// a controller's topics are a prefix and a few words.
    public static let maxTopicBytes = 1_024

    /// A payload larger than this is refused. MQTT allows 256 MB; a controller's messages are
    /// events and status, a few hundred bytes, and libmosquitto copies each one it queues.
    public static let maxPayloadBytes = 256 * 1_024

    /// The most of one received payload a client takes (its default, and the most a
    /// configuration may ask for): a longer one is delivered cut to it, with its length
    /// (``MQTTMessage/isCut``), so a broker's 256 MB retained message is not copied whole into
    /// every reader. The same as a publish's bound: nothing this runtime sends is cut.
    public static let maxReceivedPayloadBytes = maxPayloadBytes

    /// Messages of QoS 1 or 2 handed to the library and not yet acknowledged by the broker:
    /// while the broker is away libmosquitto keeps every one in memory (it has no bound of its
    /// own), so beyond this `publish` refuses and the caller keeps the rest (an outbox's rows).
    public static let maxUnacknowledgedMessages = 1_000

    /// Messages of QoS 1 or 2 on the wire at once (MOSQ_OPT_SEND_MAXIMUM; libmosquitto's
    /// default is also 20). Later ones wait in the library's queue until an acknowledgement
    /// makes room.
    public static let inflightWindow: Int32 = 20

    /// The client identifier: MQTT 3.1.1 (§3.1.3.1) obliges a broker to accept 1 to 23 bytes of
    /// letters and digits; `-`, `_` and `.` are allowed as well, as every broker in use takes them.
    /// A persistent session is found again by it, so it is required and must be stable.
    public static let maxClientIDBytes = 23

    /// Keepalive: how often the client pings an idle connection, and so how soon either side
    /// notices a dead one (the broker after 1.5 times it). libmosquitto refuses less than 5 s,
    /// MQTT more than 65,535 s; 0 (no keepalive) is not allowed: a silent half-open connection
    /// would hold messages unacknowledged for hours.
    public static let minKeepAliveSeconds: UInt16 = 5
    public static let maxKeepAliveSeconds: UInt16 = .max
    public static let defaultKeepAliveSeconds: UInt16 = 30

    /// Reconnecting: the first wait after a failed or lost connection, doubled after each failed
    /// attempt up to the longest, and back to the first once a connection is accepted. Each wait
    /// gets up to a quarter more at random, so a fleet of controllers does not reconnect to a
    /// restarted broker all in the same second.
    public static let defaultFirstReconnectDelay: Duration = .seconds(1)
    public static let defaultMaxReconnectDelay: Duration = .seconds(60)
    public static let minReconnectDelay: Duration = .milliseconds(50)
    public static let maxReconnectDelay: Duration = .seconds(3_600)
    public static let reconnectJitterDivisor: Int64 = 4

    /// The password file: a password is a line of text. MQTT allows 65,535 bytes.
    public static let maxPasswordBytes = 4_096
    /// The user name (MQTT's limit on a string).
    public static let maxUsernameBytes = 65_535

    /// How long `stop` lets the network thread send DISCONNECT before it closes the socket
    /// anyway (a broker that got no DISCONNECT publishes the last will).
    public static let stopGrace: Duration = .seconds(2)

    /// A certificate or key file larger than this is not one (a PEM certificate is 1-2 kB, a
    /// CA bundle a few hundred kB).
    public static let maxPEMFileBytes = 1_024 * 1_024

    /// The oldest libmosquitto this client was written against: 2.0 (Debian 12 ships 2.0.11).
    /// 1.x has the same soname and lacks functions it uses, or differs in what it does on a
    /// reconnect.
    public static let minLibraryMajorVersion: Int32 = 2
}
