import ControllerSite
import ArgumentParser
import ControllerHost
import ControllerMQTT

#if canImport(Glibc)
import Glibc
#endif

/// `run`'s options for the site's MQTT broker.
struct SiteOptions: ParsableArguments {
    @OptionGroup var connection: MQTTConnectionOptions

    @Option(name: .customLong("mqtt-node"), help: ArgumentHelp(
        "This controller's id on the broker (default: the board's name and the host's).", valueName: "id"))
    var node: String?

    @Option(name: .customLong("mqtt-discovery-prefix"), help: ArgumentHelp(
        "Home Assistant's discovery prefix: a device per controller is announced under it.", valueName: "prefix"))
    var discoveryPrefix: String?

    @Flag(name: .customLong("no-mqtt-discovery"), help: "Announce nothing to Home Assistant.")
    var noDiscovery = false

    /// The topics, the client's configuration and Home Assistant's discovery prefix (nil: none);
    /// nil without --mqtt.
    func resolve(boardName: String, daemon: String, hasDatabase: Bool) throws
        -> (topics: SiteTopics, configuration: MQTTConfiguration, discoveryPrefix: String?)?
    {
        if noDiscovery && discoveryPrefix != nil { throw ValidationError("--no-mqtt-discovery and --mqtt-discovery-prefix contradict each other") }
        guard let url = connection.url else {
            let given = (node == nil ? [] : ["--mqtt-node"]) + (discoveryPrefix == nil ? [] : ["--mqtt-discovery-prefix"])
                + (noDiscovery ? ["--no-mqtt-discovery"] : []) + connection.givenWithoutURL
            if let first = given.first { throw ValidationError("\(first) needs --mqtt") }
            return nil
        }
        guard hasDatabase else { throw ValidationError(SiteOptionError.needsDatabase.description) }
        let broker = try connection.broker(url)
        let topics: SiteTopics
        do throws(SiteOptionError) {
            topics = try SiteTopics(prefix: connection.prefix, node: node ?? SiteTopics.defaultNode(board: boardName, host: SiteIdentity.hostName()))
        } catch .invalidNode(_, let made, let problem) where node == nil {
            // The default is escaped, so only its length or the reserved level can refuse it:
            // the option to name is the one that replaces it.
            throw ValidationError(SiteOptionError.invalidDefaultNode(node: made, problem: problem).description)
        } catch {
            throw ValidationError(error.description)
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
                throw ValidationError(error.description)
            }
        }
        return (topics, configuration, discovery)
    }
}
