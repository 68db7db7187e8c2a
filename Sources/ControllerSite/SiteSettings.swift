import ControllerDaemon
import ControllerHost
import ControllerMQTT

/// The daemon's place in a site: its broker, its node's id and Home Assistant's discovery.
/// Each field is the command line's option of the same meaning, which the refusals name.
public struct SiteSettings: Sendable, Equatable {
    public var connection = MQTTConnectionSettings()
    /// This controller's id on the broker (`--mqtt-node`; nil: the board's name and the host's).
    public var node: String?
    /// Home Assistant's discovery prefix (`--mqtt-discovery-prefix`; nil: `homeassistant`).
    public var discoveryPrefix: String?
    /// Announce nothing to Home Assistant (`--no-mqtt-discovery`).
    public var noDiscovery = false

    public init(connection: MQTTConnectionSettings = MQTTConnectionSettings()) {
        self.connection = connection
    }

    /// What the site publisher is started with.
    package struct Resolved: Sendable {
        package let topics: SiteTopics
        package let configuration: MQTTConfiguration
        /// Home Assistant's discovery prefix; nil: none.
        package let discoveryPrefix: String?
    }

    /// The topics, the client's configuration and Home Assistant's discovery prefix; nil without
    /// a broker. Every refusal names the option and the fix.
    package func resolve(boardName: String, daemon: String, hasDatabase: Bool) throws(DaemonOptionError) -> Resolved? {
        if noDiscovery && discoveryPrefix != nil {
            throw DaemonOptionError("--no-mqtt-discovery and --mqtt-discovery-prefix contradict each other")
        }
        guard let url = connection.url else {
            let given = (node == nil ? [] : ["--mqtt-node"]) + (discoveryPrefix == nil ? [] : ["--mqtt-discovery-prefix"])
                + (noDiscovery ? ["--no-mqtt-discovery"] : []) + connection.givenWithoutURL
            if let first = given.first { throw DaemonOptionError("\(first) needs --mqtt") }
            return nil
        }
        guard hasDatabase else { throw DaemonOptionError(SiteOptionError.needsDatabase.description) }
        let broker = try connection.broker(url)
        let topics: SiteTopics
        do throws(SiteOptionError) {
            topics = try SiteTopics(prefix: connection.prefix, node: node ?? SiteTopics.defaultNode(board: boardName, host: SiteIdentity.hostName()))
        } catch .invalidNode(_, let made, let problem) where node == nil {
            // The default is escaped, so only its length or the reserved level can refuse it:
            // the option to name is the one that replaces it.
            throw DaemonOptionError(SiteOptionError.invalidDefaultNode(node: made, problem: problem).description)
        } catch {
            throw DaemonOptionError(error.description)
        }
        let configuration = try connection.configuration(
            broker: broker, clientID: SiteTopics.clientID(daemon: daemon, prefix: topics.prefix, node: topics.node),
            cleanSession: false,
            will: MQTTWill(topic: topics.availability, payload: Array(SitePayload.offline.utf8), qos: .atLeastOnce, retain: true))
        var discovery: String?
        if !noDiscovery {
            do throws(SiteOptionError) {
                discovery = try SiteTopics.checkedDiscoveryPrefix(discoveryPrefix ?? SiteTopics.defaultDiscoveryPrefix)
            } catch {
                throw DaemonOptionError(error.description)
            }
        }
        return Resolved(topics: topics, configuration: configuration, discoveryPrefix: discovery)
    }
}
