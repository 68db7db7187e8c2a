import ControllerHost
/// Why the MQTT client could not be made, start, connect, publish or subscribe. Each message
/// says what to do about it, naming what the user can look at: the broker's URL, the file (CA,
/// certificate, key, password), the library and how to install it, and libmosquitto's own words
/// for the failure (`mosquitto_strerror`, `mosquitto_connack_string`, its OpenSSL log line).
public enum MQTTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libmosquitto could not be opened (not installed, or a file that lacks a function the
    /// client binds: `reason` names it).
    case libraryUnavailable(file: String, reason: String)
    /// libmosquitto is older than ``MQTTLimits/minLibraryMajorVersion``.
    case libraryTooOld(file: String, version: String)
    /// The broker's URL is not `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`.
    case invalidBrokerURL(url: String, problem: String)
    /// `mqtt://` (no TLS) to a host that is not this machine, and the caller did not allow it.
    case plaintextToRemoteHost(url: String, host: String)
    /// A setting out of its bounds: `setting` names it, `problem` says what it must be.
    case invalidConfiguration(setting: String, problem: String)
    /// The password file cannot be used.
    case passwordFile(path: String, problem: String)
    /// A TLS file (`role`: "CA file", "client certificate", "client key") cannot be used.
    case tlsFile(role: String, path: String, problem: String)
    /// A topic (or subscription filter) the broker would refuse, or beyond ``MQTTLimits/maxTopicBytes``.
    case invalidTopic(topic: String, problem: String)
    /// A payload beyond ``MQTTLimits/maxPayloadBytes``.
    case payloadTooLarge(bytes: Int, limit: Int)
    /// ``MQTTLimits/maxUnacknowledgedMessages`` are waiting for the broker: publish again after
    /// some are acknowledged (`published` events), or once the broker is back.
    case tooManyUnacknowledged(broker: String, limit: Int)
    /// `publish` or `subscribe` before `start`.
    case notStarted
    /// `start` a second time.
    case alreadyStarted
    /// Used after `stop`: a stopped client does not start again (make a new one).
    case stopped
    /// A QoS 0 message while there is no connection: it would be lost, so it is refused.
    case notConnected(broker: String)
    /// The broker answered CONNECT with a refusal (CONNACK `code`, libmosquitto's `reason`).
    case refused(broker: String, code: Int32, reason: String, hint: String)
    /// A connection attempt failed before the broker answered: no route, refused, name lookup,
    /// TLS (certificate, CA, key).
    case connectionFailed(broker: String, reason: String)
    /// An accepted connection ended without `stop`.
    case connectionLost(broker: String, reason: String)
    /// libmosquitto refused a call (`operation`) with `reason`.
    case library(operation: String, reason: String)

    public var description: String {
        switch self {
        case let .libraryUnavailable(file, reason):
            "the MQTT client cannot load libmosquitto (\(file): \(reason)); it needs libmosquitto 2.0 or later "
                + "at run time: sudo apt install libmosquitto1"
        case let .libraryTooOld(file, version):
            "\(file) is libmosquitto \(version); the MQTT client needs 2.0 or later "
                + "(Debian 12's libmosquitto1 is 2.0.11): sudo apt install libmosquitto1"
        case let .invalidBrokerURL(url, problem):
            "broker URL '\(url.shown)': \(problem)"
        case let .plaintextToRemoteHost(url, host):
            "broker URL '\(url.shown)' would send the password and every message unencrypted to \(host.shown), which is "
                + "not this machine: use mqtts:// (TLS), or allow plain MQTT to other hosts explicitly"
        case let .invalidConfiguration(setting, problem):
            "MQTT \(setting): \(problem)"
        case let .passwordFile(path, problem):
            "MQTT password file \(path.shown): \(problem)"
        case let .tlsFile(role, path, problem):
            "MQTT TLS \(role) \(path.shown): \(problem)"
        case let .invalidTopic(topic, problem):
            "MQTT topic '\(topic.shown)': \(problem)"
        case let .payloadTooLarge(bytes, limit):
            "MQTT payload of \(bytes) bytes is larger than the client's limit of \(limit) bytes"
        case let .tooManyUnacknowledged(broker, limit):
            "\(limit) MQTT messages are still waiting for \(broker) to acknowledge them; "
                + "publish again once some are acknowledged"
        case .notStarted:
            "the MQTT client is not started: call start() first"
        case .alreadyStarted:
            "the MQTT client is already started"
        case .stopped:
            "the MQTT client was stopped; make a new one to connect again"
        case let .notConnected(broker):
            "not connected to \(broker): a QoS 0 message would be lost (publish it with QoS 1 to have it "
                + "sent once the connection is back)"
        case let .refused(broker, code, reason, hint):
            "the broker \(broker) refused the connection: \(reason) (CONNACK \(code))" + (hint.isEmpty ? "" : "; \(hint)")
        case let .connectionFailed(broker, reason):
            "cannot connect to the broker \(broker): \(reason)"
        case let .connectionLost(broker, reason):
            "lost the connection to the broker \(broker): \(reason)"
        case let .library(operation, reason):
            "libmosquitto refused \(operation): \(reason)"
        }
    }
}

