import ControllerMQTT
import Testing

@Suite("Broker URLs")
struct BrokerURLTests {
    @Test(
        "accepted, in canonical form",
        arguments: [
            ("mqtt://127.0.0.1", "mqtt://127.0.0.1:1883"),
            ("mqtts://broker.example.com", "mqtts://broker.example.com:8883"),
            ("mqtts://broker.example.com:8884", "mqtts://broker.example.com:8884"),
            ("MQTTS://Broker.Example.COM:1", "mqtts://broker.example.com:1"),
            ("mqtt://localhost:65535", "mqtt://localhost:65535"),
            ("mqtt://[::1]:1883", "mqtt://[::1]:1883"),
            ("mqtts://[2001:db8::7]", "mqtts://[2001:db8::7]:8883"),
            ("mqtt://127.8.9.10:2000", "mqtt://127.8.9.10:2000"),
            ("mqtts://10.0.0.5:8883", "mqtts://10.0.0.5:8883"),
        ]
    )
    func accepted(text: String, canonical: String) throws {
        let url = try MQTTBrokerURL.parse(text)
        #expect(url.description == canonical)
        #expect(url.usesTLS == canonical.hasPrefix("mqtts"))
    }

    @Test(
        "refused, with the reason",
        arguments: [
            ("", "is empty"),
            ("broker.example.com:1883", "has no scheme"),
            ("http://broker.example.com", "the scheme 'http' is not MQTT's"),
            ("tcp://127.0.0.1:1883", "tcp:// is mqtt:// here"),
            ("ssl://broker.example.com", "ssl:// is mqtts:// here"),
            ("wss://broker.example.com", "WebSockets"),
            ("mqtts://node1:secret@broker.example.com", "user name or password"),
            ("mqtts://broker.example.com/", "a path ('/')"),
            ("mqtts://broker.example.com:8883/nodes", "a path ('/nodes')"),
            ("mqtts://broker.example.com?x=1", "a query"),
            ("mqtts://broker.example.com#top", "a fragment"),
            ("mqtts://broker.example.com:", "':' but no port"),
            ("mqtts://broker.example.com:0", "the port '0' is not a number from 1 to 65535"),
            ("mqtts://broker.example.com:65536", "the port '65536'"),
            ("mqtts://broker.example.com:88a3", "the port '88a3'"),
            ("mqtts://broker.example.com:-1", "the port '-1'"),
            ("mqtts://broker.example.com:+88", "the port '+88'"),
            ("mqtts://broker.example.com:000008883", "the port '000008883'"),
            ("mqtts://::1:8883", "IPv6 address must be in brackets"),
            ("mqtts://[::1", "'[' without ']'"),
            ("mqtts://[::1]x", "after the IPv6 address"),
            ("mqtts://[fe80::1%eth0]:8883", "is not an IPv6 address"),
            ("mqtts://[1.2.3.4]:8883", "is not an IPv6 address"),
            ("mqtts://:8883", "has no host"),
            ("mqtts://256.1.1.1", "is not an IPv4 address"),
            ("mqtts://bro ker", "a space"),
            ("mqtts://broker_1.example.com", "is not a host name"),
            ("mqtts://-broker.example.com", "is not a host name"),
            ("mqtts://broker..example.com", "is not a host name"),
        ]
    )
    func refused(text: String, reason: String) {
        #expect {
            try MQTTBrokerURL.parse(text)
        } throws: { error in
            guard let error = error as? MQTTError, case .invalidBrokerURL = error else { return false }
            return error.description.contains(reason)
        }
    }

    @Test("a password in the URL is not repeated in the error")
    func passwordRedacted() throws {
        let error = #expect(throws: MQTTError.self) { try MQTTBrokerURL.parse("mqtts://node1:hunter2@broker.example.com:8883") }
        let text = try #require(error).description
        #expect(!text.contains("hunter2"))
        #expect(!text.contains("node1"))
        #expect(text.contains("broker.example.com:8883"))
    }

    @Test(
        "plain MQTT only to this machine, unless allowed",
        arguments: [
            ("mqtt://127.0.0.1", true),
            ("mqtt://127.255.255.254:1883", true),
            ("mqtt://localhost", true),
            ("mqtt://LOCALHOST", true),
            ("mqtt://[::1]", true),
            ("mqtt://[0:0:0:0:0:0:0:1]", true),
            ("mqtt://128.0.0.1", false),
            ("mqtt://10.1.2.3", false),
            ("mqtt://192.168.1.10:1883", false),
            ("mqtt://[::2]", false),
            ("mqtt://[::ffff:127.0.0.1]", false),
            ("mqtt://localhost.example.com", false),
            ("mqtt://broker.example.com", false),
        ]
    )
    func plaintext(text: String, loopback: Bool) throws {
        if loopback {
            #expect(try MQTTBrokerURL.parse(text).isLoopback)
        } else {
            let error = #expect(throws: MQTTError.self) { try MQTTBrokerURL.parse(text) }
            guard case .plaintextToRemoteHost? = error else {
                Issue.record("expected plaintextToRemoteHost, got \(String(describing: error))")
                return
            }
            #expect(error!.description.contains("use mqtts://"))
            let allowed = try MQTTBrokerURL.parse(text, allowPlaintextToRemoteHost: true)
            #expect(!allowed.isLoopback)
            #expect(!allowed.usesTLS)
            // TLS to the same host needs no permission.
            #expect(throws: Never.self) { try MQTTBrokerURL.parse(text.replacing("mqtt://", with: "mqtts://")) }
        }
    }
}
