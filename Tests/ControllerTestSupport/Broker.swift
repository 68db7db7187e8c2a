import ControllerFSM
import ControllerMQTT
import Foundation

/// A mosquitto of the test's own, started by scripts/mqtt-broker.sh (two loopback ports, a
/// password file, an ACL, TLS with the CA and certificates it made) and stopped with `stop`.
public struct Broker: Sendable {
    public let directory: String
    public let plainPort: UInt16
    public let tlsPort: UInt16

    /// scripts/mqtt-broker.sh beside this package's Tests/ (CONTROLLER_MQTT_BROKER_SCRIPT names another).
    public static var script: String {
        if let path = ProcessInfo.processInfo.environment["CONTROLLER_MQTT_BROKER_SCRIPT"] { return path }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/mqtt-broker.sh").path
    }

    /// Whether this machine can run the broker's tests: mosquitto, openssl and libmosquitto.
    public static let availability: String? = {
        for tool in ["/usr/sbin/mosquitto", "/usr/bin/mosquitto_passwd", "/usr/bin/openssl"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (sudo apt-get install -y mosquitto libmosquitto1 openssl)"
        }
        do throws(MQTTError) {
            _ = try MQTTLibrary.open()
        } catch {
            return error.description
        }
        return nil
    }()

    public static var libraryLoads: Bool { (try? MQTTLibrary.open()) != nil }

    /// Set to 1 (CI) to fail, not skip, where the broker cannot run.
    public static var required: Bool { ProcessInfo.processInfo.environment["CONTROLLER_MQTT_REQUIRE_BROKER"] == "1" }
    public static var enabled: Bool { availability == nil || required }

    public static func start() throws -> Broker {
        if let availability { throw BrokerError(text: "cannot run the MQTT broker tests: \(availability)") }
        let (status, output, errors) = try run([script, "start"])
        guard status == 0 else { throw BrokerError(text: "mqtt-broker.sh start failed (\(status)): \(errors)") }
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let directory = values["MQTT_BROKER_DIR"], let plain = values["MQTT_PLAIN_PORT"].flatMap(UInt16.init),
            let tls = values["MQTT_TLS_PORT"].flatMap(UInt16.init)
        else {
            throw BrokerError(text: "mqtt-broker.sh start printed no ports: \(output)")
        }
        return Broker(directory: directory, plainPort: plain, tlsPort: tls)
    }

    public func stop() {
        _ = try? Broker.run([Broker.script, "stop", directory])
    }

    /// Ends the broker as an outage would (it saves its sessions and queued messages).
    public func pause() throws {
        let (status, _, errors) = try Broker.run([Broker.script, "pause", directory])
        guard status == 0 else { throw BrokerError(text: "mqtt-broker.sh pause failed (\(status)): \(errors)") }
    }

    /// Starts it again on the same ports.
    public func resume() throws {
        let (status, _, errors) = try Broker.run([Broker.script, "resume", directory])
        guard status == 0 else { throw BrokerError(text: "mqtt-broker.sh resume failed (\(status)): \(errors)") }
    }

    /// Starts a broker, runs `body`, stops the broker whatever happens.
    public static func with<T>(_ body: (Broker) async throws -> T) async throws -> T {
        let broker = try start()
        defer { broker.stop() }
        return try await body(broker)
    }

    public func file(_ name: String) -> String { "\(directory)/\(name)" }

    public var plainURL: MQTTBrokerURL { try! MQTTBrokerURL.parse("mqtt://127.0.0.1:\(plainPort)") }
    public var tlsURL: MQTTBrokerURL { try! MQTTBrokerURL.parse("mqtts://127.0.0.1:\(tlsPort)") }

    /// The broker's log, for a failing test's message.
    public var log: String { (try? String(contentsOfFile: file("mosquitto.log"), encoding: .utf8)) ?? "" }

    public func configuration(
        user: String = "node1", passwordFile: String? = nil, url: MQTTBrokerURL? = nil, tls: MQTTTLSFiles = MQTTTLSFiles(),
        will: MQTTWill? = nil, clientID: String, firstReconnectDelay: Duration = .milliseconds(200)
    ) -> MQTTConfiguration {
        MQTTConfiguration(
            broker: url ?? plainURL, clientID: clientID, username: user, passwordFile: passwordFile ?? file("\(user).password"),
            tls: tls, keepAliveSeconds: 10, will: will,
            reconnect: MQTTReconnectPolicy(first: firstReconnectDelay, maximum: .seconds(2))
        )
    }

    /// Runs `arguments` under bash, with posix_spawn and waitpid: Foundation's Process once
    /// missed the script's exit here and waited for ever.
    private static func run(_ arguments: [String]) throws -> (Int32, String, String) {
        var output: [Int32] = [0, 0]
        var errors: [Int32] = [0, 0]
        guard pipe(&output) == 0, pipe(&errors) == 0 else { throw BrokerError(text: "pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        for descriptor in output + errors { posix_spawn_file_actions_addclose(&actions, descriptor) }
        // The script and the broker it starts get no blocked signal and the default SIGPIPE: the
        // test runner's threads block signals, libmosquitto ignores SIGPIPE, and both pass to a
        // child, where a broker that cannot see SIGTERM cannot be stopped.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = (["/bin/bash"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, &attributes, argv, environ)
        close(output[1])
        close(errors[1])
        defer {
            close(output[0])
            close(errors[0])
        }
        guard spawned == 0 else { throw BrokerError(text: "posix_spawn: \(String(cString: strerror(spawned)))") }
        // The script's output is a few lines: read stdout, then stderr, each to its end.
        func drain(_ descriptor: Int32) -> String {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 { bytes += buffer[..<count] } else if count < 0 && errno == EINTR { continue } else { break }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        let out = drain(output[0])
        let err = drain(errors[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exitCode, out, err)
    }
}

public struct BrokerError: Error, CustomStringConvertible {
    public let text: String
    public var description: String { text }
}

/// Every event a client delivered, and waiting for one. The client's thread appends while the
/// test reads: behind a `Guarded`, whose lock ThreadSanitizer sees also when the two meet (the
/// standard library's `Mutex` then sleeps on a futex it cannot see).
public final class EventLog: Sendable {
    private let events = Guarded<[MQTTEvent]>([])

    public init() {}

    public func record(_ event: MQTTEvent) {
        events.withLock { $0.append(event) }
    }

    public var all: [MQTTEvent] { events.withLock { $0 } }

    /// How long a test waits for an event that must come: a connection, a subscription, a
    /// message through a broker on loopback, a few reconnection attempts (the tests' delays are
    /// 0.2 s doubling to 2 s). Milliseconds to a few seconds in a plain debug run; CI runs the
    /// AddressSanitizer and ThreadSanitizer test runs at the same time on 2 cores (5–20 times
    /// slower). The wait returns as soon as the event is there.
    public static let patience: Duration = .seconds(30)

    /// How long a test listens to show that something does not come (a message the ACL
    /// refuses, a last will after a clean stop). A slow machine can only make such a message
    /// come after the window, so be missed: the test then shows less, never fails falsely.
    public static let quietWindow: Duration = .seconds(1)

    /// The first event (from the start) that `matches`, waiting up to `timeout` for it.
    public func first(within timeout: Duration = EventLog.patience, _ matches: (MQTTEvent) -> Bool) async -> MQTTEvent? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let event = all.first(where: matches) { return event }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// How many events match, now.
    public func count(_ matches: (MQTTEvent) -> Bool) -> Int { all.filter(matches).count }
}

extension MQTTClient {
    /// A client whose events go to a new log.
    public static func logged(_ configuration: MQTTConfiguration) throws(MQTTError) -> (MQTTClient, EventLog) {
        let log = EventLog()
        let client = try MQTTClient(configuration: configuration) { log.record($0) }
        return (client, log)
    }
}

extension MQTTEvent {
    public var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    public var connectFailure: MQTTError? {
        if case let .connectFailed(error, _) = self { return error }
        return nil
    }

    public var receivedMessage: MQTTMessage? {
        if case let .message(message) = self { return message }
        return nil
    }

    public var subscriptionID: MQTTMessageID? {
        if case let .subscribed(id, _) = self { return id }
        return nil
    }

    public var isDisconnected: Bool {
        if case .disconnected = self { return true }
        return false
    }
}
