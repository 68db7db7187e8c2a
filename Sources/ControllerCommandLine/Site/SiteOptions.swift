import ControllerRuntime
import ControllerSite
import ArgumentParser
import ControllerHost
import ControllerMQTT


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

    /// The options as the daemon takes them.
    var settings: SiteSettings {
        var settings = SiteSettings(connection: connection.settings)
        settings.node = node
        settings.discoveryPrefix = discoveryPrefix
        settings.noDiscovery = noDiscovery
        return settings
    }
}
