import ControllerDaemon
import ControllerHost
import ControllerMQTT

/// How to reach the site's broker: the daemon's site and the fleet share these. Each field is
/// the command line's option of the same meaning (`--mqtt`, `--mqtt-prefix`, ...), which the
/// refusals name.
public struct MQTTConnectionSettings: Sendable, Equatable {
    /// The site's broker: `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (TLS); nil: no site.
    public var url: String?
    /// The site's topic prefix.
    public var prefix = SiteTopics.defaultPrefix
    public var username: String?
    /// A file whose first line is the password (never the password itself).
    public var passwordFile: String?
    public var caFile: String?
    public var certificateFile: String?
    public var keyFile: String?
    /// Allows plain `mqtt://` to this host, which must be the URL's; loopback needs no permission.
    public var plaintextHost: String?

    public init(url: String? = nil) {
        self.url = url
    }

    /// The options given that mean something only with `--mqtt`.
    package var givenWithoutURL: [String] {
        [("--mqtt-username", username), ("--mqtt-password-file", passwordFile), ("--mqtt-ca-file", caFile),
         ("--mqtt-cert-file", certificateFile), ("--mqtt-key-file", keyFile), ("--mqtt-plaintext-host", plaintextHost)]
            .filter { $0.1 != nil }.map(\.0)
    }

    /// The broker's URL, refused (with the option that allows it) when it is plain text to
    /// another machine that `--mqtt-plaintext-host` does not name.
    package func broker(_ url: String) throws(DaemonOptionError) -> MQTTBrokerURL {
        let probe = try? MQTTBrokerURL.parse(url, allowPlaintextToRemoteHost: true)
        if let plaintextHost, let probe, plaintextHost != probe.host {
            throw DaemonOptionError("--mqtt-plaintext-host \(plaintextHost.shown) is not the broker's host (\(probe.host.shown))")
        }
        do throws(MQTTError) {
            return try MQTTBrokerURL.parse(url, allowPlaintextToRemoteHost: plaintextHost != nil)
        } catch .plaintextToRemoteHost(let url, let host) {
            throw DaemonOptionError(
                "--mqtt: '\(url.shown)' would send the password and every message unencrypted to \(host.shown), which is not this machine: "
                    + "use mqtts:// (TLS), or allow it with --mqtt-plaintext-host \(host.shown)")
        } catch {
            throw DaemonOptionError("--mqtt: \(error)")
        }
    }

    /// The client's configuration, checked.
    package func configuration(
        broker: MQTTBrokerURL, clientID: String, cleanSession: Bool, will: MQTTWill?
    ) throws(DaemonOptionError) -> MQTTConfiguration {
        let configuration = MQTTConfiguration(
            broker: broker, clientID: clientID, username: username, passwordFile: passwordFile,
            tls: MQTTTLSFiles(caFile: caFile, certificateFile: certificateFile, keyFile: keyFile), cleanSession: cleanSession, will: will)
        do {
            try configuration.validate()
        } catch {
            throw DaemonOptionError("--mqtt: \(error)")
        }
        return configuration
    }

    /// The prefix checked as the topics check it (``SiteTopics/prefixProblem(_:)``), refused
    /// naming `--mqtt-prefix`, for the daemon and the fleet alike.
    package func checkedPrefix() throws(DaemonOptionError) -> String {
        if let problem = SiteTopics.prefixProblem(prefix) {
            throw DaemonOptionError(SiteOptionError.invalidPrefix(option: "--mqtt-prefix", prefix: prefix, problem: problem).description)
        }
        return prefix
    }
}
