/// The identifier libmosquitto gives a published message (or a subscription): what the
/// `published` event names when the broker acknowledges it. Unique among the messages not yet
/// acknowledged; reused after (it is MQTT's 16-bit packet identifier).
public struct MQTTMessageID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    public var description: String { "#\(rawValue)" }
}

/// A message the broker delivered on one of the client's subscriptions.
public struct MQTTMessage: Equatable, Sendable {
    public var topic: String
    /// The payload, or its first ``MQTTConfiguration/maxReceivedPayloadBytes`` when it was
    /// longer (``isCut``): a reader never takes more than its bound.
    public var payload: [UInt8]
    /// The payload's length as the broker sent it.
    public var payloadBytes: Int
    public var qos: MQTTQoS
    /// The broker's retained message for the topic, sent on subscribing: not a new one.
    public var retained: Bool

    /// `payloadBytes`: the length the broker sent, when `payload` is only its start.
    public init(topic: String, payload: [UInt8], qos: MQTTQoS, retained: Bool, payloadBytes: Int? = nil) {
        self.topic = topic
        self.payload = payload
        self.payloadBytes = max(payloadBytes ?? payload.count, payload.count)
        self.qos = qos
        self.retained = retained
    }

    /// Whether `payload` is only the start of what the broker sent: it must not be read as the
    /// whole message.
    public var isCut: Bool { payloadBytes > payload.count }
}

/// What the client tells its owner, on the client's network thread (see ``MQTTClient``).
public enum MQTTEvent: Equatable, Sendable {
    /// The broker accepted the connection. `sessionPresent`: it still had the client's
    /// persistent session (its subscriptions and the messages queued for it). The client
    /// subscribes again to every filter given to `subscribe` either way.
    case connected(sessionPresent: Bool)
    /// An attempt to connect failed (the broker refused it, or it was never reached); the next
    /// is in `retryIn`.
    case connectFailed(MQTTError, retryIn: Duration)
    /// A connection the broker had accepted ended: `nil` after `stop`, else why. The client
    /// connects again on its own; messages of QoS 1 and 2 not yet acknowledged are sent again
    /// then.
    case disconnected(MQTTError?)
    /// The broker acknowledged the message `publish` returned this identifier for: PUBACK (QoS
    /// 1), PUBCOMP (QoS 2). For QoS 0 it only means the message was written to the socket.
    case published(MQTTMessageID)
    /// The broker answered a subscription: the QoS it granted each filter, nil where it refused.
    case subscribed(MQTTMessageID, granted: [MQTTQoS?])
    /// A message arrived on a subscription.
    case message(MQTTMessage)
}
