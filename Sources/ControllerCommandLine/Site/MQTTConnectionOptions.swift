import ControllerSite
import ArgumentParser
import ControllerMQTT
import ControllerHost

/// How to reach the site's broker: `run --mqtt` and `fleet` share these.
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

    /// The options given that mean something only with `--mqtt`.
    var givenWithoutURL: [String] {
        [("--mqtt-username", username), ("--mqtt-password-file", passwordFile), ("--mqtt-ca-file", caFile),
         ("--mqtt-cert-file", certificateFile), ("--mqtt-key-file", keyFile), ("--mqtt-plaintext-host", plaintextHost)]
            .filter { $0.1 != nil }.map(\.0)
    }

    /// The broker's URL, refused (with the option that allows it) when it is plain text to
    /// another machine that `--mqtt-plaintext-host` does not name.
    func broker(_ url: String) throws -> MQTTBrokerURL {
        let probe = try? MQTTBrokerURL.parse(url, allowPlaintextToRemoteHost: true)
        if let plaintextHost, let probe, plaintextHost != probe.host {
            throw ValidationError("--mqtt-plaintext-host \(plaintextHost.shown) is not the broker's host (\(probe.host.shown))")
        }
        let broker: MQTTBrokerURL
        do throws(MQTTError) {
            broker = try MQTTBrokerURL.parse(url, allowPlaintextToRemoteHost: plaintextHost != nil)
        } catch .plaintextToRemoteHost(let url, let host) {
            throw ValidationError(
                "--mqtt: '\(url.shown)' would send the password and every message unencrypted to \(host.shown), which is not this machine: "
                    + "use mqtts:// (TLS), or allow it with --mqtt-plaintext-host \(host.shown)")
        } catch {
            throw ValidationError("--mqtt: \(error)")
        }
        return broker
    }

    /// The client's configuration, checked.
    func configuration(broker: MQTTBrokerURL, clientID: String, cleanSession: Bool, will: MQTTWill?) throws -> MQTTConfiguration {
        let configuration = MQTTConfiguration(
            broker: broker, clientID: clientID, username: username, passwordFile: passwordFile,
            tls: MQTTTLSFiles(caFile: caFile, certificateFile: certificateFile, keyFile: keyFile), cleanSession: cleanSession, will: will)
        do {
            try configuration.validate()
        } catch {
            throw ValidationError("--mqtt: \(error)")
        }
        return configuration
    }

    /// The prefix checked as the topics check it (``SiteTopics/prefixProblem(_:)``), refused
    /// naming `--mqtt-prefix`, for `run` and `fleet` alike.
    func checkedPrefix() throws -> String {
        if let problem = SiteTopics.prefixProblem(prefix) {
            throw ValidationError(SiteOptionError.invalidPrefix(option: "--mqtt-prefix", prefix: prefix, problem: problem).description)
        }
        return prefix
    }
}
