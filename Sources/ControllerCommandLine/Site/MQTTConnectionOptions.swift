import ControllerRuntime
import ControllerSite
import ArgumentParser
import ControllerMQTT
import ControllerHost
import ControllerDaemon

/// How to reach the site's broker: `run --mqtt` and `fleet` share these (``MQTTConnectionSettings``).
struct MQTTConnectionOptions: ParsableArguments {
    @Option(name: .customLong("mqtt"), help: ArgumentHelp(
        "The site's MQTT broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS).", valueName: "url"))
    var url: String?

    @Option(name: .customLong("mqtt-prefix"), help: ArgumentHelp("The site's topic prefix.", valueName: "prefix"))
    var prefix = SiteTopics.defaultPrefix

    @Option(name: .customLong("mqtt-username"), help: ArgumentHelp("The user name to log in with.", valueName: "name"))
    var username: String?

    @Option(name: .customLong("mqtt-password-file"), help: ArgumentHelp(
        "A file whose first line is the password (never on the command line).", valueName: "file"))
    var passwordFile: String?

    @Option(name: .customLong("mqtt-ca-file"), help: ArgumentHelp("mqtts: the CA that signed the broker's certificate.", valueName: "file"))
    var caFile: String?

    @Option(name: .customLong("mqtt-cert-file"), help: ArgumentHelp("mqtts: this client's certificate (with --mqtt-key-file).", valueName: "file"))
    var certificateFile: String?

    @Option(name: .customLong("mqtt-key-file"), help: ArgumentHelp("mqtts: this client's private key.", valueName: "file"))
    var keyFile: String?

    @Option(name: .customLong("mqtt-plaintext-host"), help: ArgumentHelp(
        "Allow plain mqtt:// (passwords and counts readable on the wire) to this host, which must be the URL's; loopback needs no permission.",
        valueName: "host"))
    var plaintextHost: String?

    /// The options as the site and the fleet take them.
    var settings: MQTTConnectionSettings {
        var settings = MQTTConnectionSettings(url: url)
        settings.prefix = prefix
        settings.username = username
        settings.passwordFile = passwordFile
        settings.caFile = caFile
        settings.certificateFile = certificateFile
        settings.keyFile = keyFile
        settings.plaintextHost = plaintextHost
        return settings
    }

    /// The broker's URL (``MQTTConnectionSettings/broker(_:)``), refused as a usage error.
    func broker(_ url: String) throws -> MQTTBrokerURL {
        try usage { () throws(DaemonOptionError) in try settings.broker(url) }
    }

    /// The client's configuration, checked (``MQTTConnectionSettings/configuration(broker:clientID:cleanSession:will:)``).
    func configuration(broker: MQTTBrokerURL, clientID: String, cleanSession: Bool, will: MQTTWill?) throws -> MQTTConfiguration {
        try usage { () throws(DaemonOptionError) in
            try settings.configuration(broker: broker, clientID: clientID, cleanSession: cleanSession, will: will)
        }
    }

    /// `--mqtt-prefix` checked as the topics check it, refused as a usage error.
    func checkedPrefix() throws -> String {
        try usage { () throws(DaemonOptionError) in try settings.checkedPrefix() }
    }
}
