@testable import ControllerCommandLine
@testable import ControllerSite
import ControllerHost
import ControllerMQTT
import Foundation
import PropertyBased
import Testing
import ControllerTestSupport

/// An `--mqtt-*` option's refusal quotes what it was given bounded and
/// escaped. Generated members: values made of letters, ESC, BEL, CSI, line breaks, `/`, `@`,
/// `:` and long runs (up to 70 KB), as the broker URL (whole, as its host, port, path and
/// scheme), `--mqtt-prefix`, `--mqtt-node`, `--mqtt-plaintext-host`, the client id and the
/// password and TLS files. Every refusal is one line, of bounded length, with no control
/// character.
@Suite("MQTT option errors quote values bounded and escaped")
struct MQTTOptionMessageTests {
    static let pieces = ["a", "Z", "9", ".", "-", "/", "@", ":", "\u{1B}", "\u{1B}[2J", "\u{07}", "\n", "\r", "\u{9B}", "\u{202E}", " ",
                         String(repeating: "h", count: 300), String(repeating: "p", count: 70_000)]
    static let hostile = Gen.element(of: pieces).map { $0! }.array(of: 1...6).map { $0.joined() }

    /// At most a few quoted values of ``Quoting/maxQuotedCharacters`` and the advice around them.
    static let longestMessage = 1_200

    func expectShown(_ message: String, _ what: String) {
        #expect(message.count <= Self.longestMessage, "\(what): \(message.count) characters: \(message.prefix(300).debugDescription)")
        let invisible = message.unicodeScalars.contains { $0.isInvisible }
        #expect(!invisible, "\(what): \(message.prefix(300).debugDescription)")
    }

    func refusal(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    @Test("every option's refusal of a hostile value")
    func hostileValues() async {
        await propertyCheck(count: PropertyCases.count(50), input: Self.hostile) { value in
            for url in [value, "mqtt://\(value)", "mqtt://\(value):1883", "mqtt://broker:\(value)", "mqtt://broker/\(value)", "\(value)://broker", "mqtt://[\(value)]", "mqtt://u:\(value)@broker"] {
                if let message = refusal({ _ = try MQTTBrokerURL.parse(url) }) { expectShown(message, "broker URL") }
                if let message = refusal({ _ = try MQTTConnectionOptions.parse(["--mqtt", url]).broker(url) }) { expectShown(message, "--mqtt") }
                if let message = refusal({ _ = try MQTTConnectionOptions.parse(["--mqtt", url, "--mqtt-plaintext-host", value]).broker(url) }) {
                    expectShown(message, "--mqtt-plaintext-host")
                }
            }
            if let message = refusal({ _ = try SiteTopics(prefix: value, node: "gate1") }) { expectShown(message, "--mqtt-prefix") }
            if let message = refusal({ _ = try SiteTopics(prefix: "site", node: value) }) { expectShown(message, "--mqtt-node") }
            if let message = refusal({ _ = try MQTTConnectionOptions.parse(["--mqtt", "mqtt://127.0.0.1", "--mqtt-prefix", value]).checkedPrefix() }) {
                expectShown(message, "--mqtt-prefix via the options")
            }
            let broker = try! MQTTBrokerURL.parse("mqtts://127.0.0.1")
            let configurations = [
                MQTTConfiguration(broker: broker, clientID: value),
                MQTTConfiguration(broker: broker, clientID: "c", username: "u", passwordFile: "/nonexistent/\(value)"),
                MQTTConfiguration(broker: broker, clientID: "c", tls: MQTTTLSFiles(caFile: "/nonexistent/\(value)")),
            ]
            for configuration in configurations {
                if let message = refusal({ try configuration.validate() }) { expectShown(message, "configuration") }
            }
        }
    }

    @Test("extreme members: a 70 KB prefix, a 300-character host, a node id's line break and escape")
    func issueExamples() throws {
        let prefix = try #require(refusal { _ = try SiteTopics(prefix: String(repeating: "p", count: 70_000) + "/#", node: "gate1") })
        expectShown(prefix, "prefix")
        let host = try #require(refusal { _ = try MQTTBrokerURL.parse("mqtt://" + String(repeating: "h", count: 300) + "_:1883") })
        expectShown(host, "host")
        let node = try #require(refusal { _ = try SiteTopics(prefix: "site", node: "gate\n1\u{1B}[2J") })
        expectShown(node, "node")
        #expect(node.contains(#"gate\u{A}1\u{1B}[2J"#), "\(node)")
    }
}
