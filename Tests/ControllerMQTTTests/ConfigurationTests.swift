import ControllerMQTT
import ControllerTestSupport
import Foundation
import Testing

@Suite("Library loading and configuration")
struct ConfigurationTests {
    private let loopback = try! MQTTBrokerURL.parse("mqtt://127.0.0.1:1883")

    @Test("a missing libmosquitto says what to install")
    func missingLibrary() {
        let configuration = MQTTConfiguration(broker: loopback, clientID: "node1", libraryFile: "libmosquitto-not-here.so.1")
        let error = #expect(throws: MQTTError.self) { try MQTTClient(configuration: configuration) { _ in } }
        guard case .libraryUnavailable(let file, _)? = error else {
            Issue.record("expected libraryUnavailable, got \(String(describing: error))")
            return
        }
        #expect(file == "libmosquitto-not-here.so.1")
        #expect(error!.description.contains("libmosquitto-not-here.so.1"))
        #expect(error!.description.contains("sudo apt install libmosquitto1"))
    }

    @Test("a library without libmosquitto's functions names the first one missing")
    func wrongLibrary() {
        let error = #expect(throws: MQTTError.self) { try MQTTLibrary.open("libc.so.6") }
        #expect(error?.description.contains("libc.so.6 has no function mosquitto_lib_version") == true)
        #expect(error?.description.contains("sudo apt install libmosquitto1") == true)
    }

    @Test("settings out of bounds are refused before anything is opened")
    func invalidSettings() {
        func refusal(_ change: (inout MQTTConfiguration) -> Void) -> String? {
            var configuration = MQTTConfiguration(broker: loopback, clientID: "node1", username: "node1")
            change(&configuration)
            do {
                try configuration.validate()
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal { _ in } == nil)
        #expect(refusal { $0.clientID = "" }?.contains("client id") == true)
        #expect(refusal { $0.clientID = String(repeating: "n", count: 24) }?.contains("1 to 23") == true)
        #expect(refusal { $0.clientID = "node 1" }?.contains("client id 'node 1'") == true)
        #expect(refusal { $0.keepAliveSeconds = 4 }?.contains("keepalive 4 s") == true)
        #expect(refusal {
            $0.username = nil
            $0.passwordFile = "/etc/node1.password"
        }?.contains("only with a user name") == true)
        #expect(refusal { $0.tls = MQTTTLSFiles(caFile: "/etc/ca.crt") }?.contains("use mqtts://") == true)
        #expect(refusal { $0.reconnect = MQTTReconnectPolicy(first: .seconds(10), maximum: .seconds(5)) } != nil)
        #expect(refusal { $0.will = MQTTWill(topic: "nodes/+/status", payload: []) }?.contains("'+' and '#'") == true)
        #expect(refusal { $0.maxReceivedPayloadBytes = 0 }?.contains("received payload bound 0 bytes") == true)
        #expect(refusal { $0.maxReceivedPayloadBytes = MQTTLimits.maxReceivedPayloadBytes + 1 }?.contains("must be 1 to") == true)
    }

    @Test("the password file: its first line, named when it cannot be used", .enabled(if: Broker.libraryLoads || Broker.required))
    func passwordFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func attempt(_ contents: String?) throws -> MQTTError? {
            let path = directory.appendingPathComponent("password").path
            try? FileManager.default.removeItem(atPath: path)
            if let contents { try contents.write(toFile: path, atomically: false, encoding: .utf8) }
            let configuration = MQTTConfiguration(
                broker: try MQTTBrokerURL.parse("mqtt://127.0.0.1:1"), clientID: "node1", username: "node1", passwordFile: path
            )
            do {
                _ = try MQTTClient(configuration: configuration) { _ in }
                return nil
            } catch {
                return error
            }
        }
        #expect(try attempt("secret\n") == nil)
        #expect(try attempt("secret\r\n") == nil)
        let missing = try attempt(nil)
        #expect(missing?.description.contains(directory.path + "/password") == true)
        #expect(missing?.description.contains("No such file or directory") == true)
        #expect(try attempt("")?.description.contains("is empty") == true)
        #expect(try attempt("\nsecret")?.description.contains("is empty") == true)
        #expect(try attempt("secret\nmore\n")?.description.contains("more than one line") == true)
        #expect(try attempt(String(repeating: "s", count: 5000))?.description.contains("is larger than 4098 bytes") == true)
        // A FIFO would hold the start for ever; a directory is no password either.
        let fifo = directory.appendingPathComponent("password.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let configuration = MQTTConfiguration(
            broker: try MQTTBrokerURL.parse("mqtt://127.0.0.1:1"), clientID: "node1", username: "node1", passwordFile: fifo)
        #expect(throws: MQTTError.self) { _ = try MQTTClient(configuration: configuration) { _ in } }
        do {
            _ = try MQTTClient(configuration: configuration) { _ in }
        } catch {
            #expect(error.description.contains("is not a regular file"), "\(error)")
        }
    }
}
