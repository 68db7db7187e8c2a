import ControllerFSMSim
@testable import ControllerCommandLine
@testable import ControllerSite
import ControllerDaemon
import ControllerHost
import ControllerMQTT
import Foundation
import ControllerTestSupport
import Turnstile
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `turnstiled run --mqtt` against Debian's mosquitto (scripts/mqtt-broker.sh: a password file,
/// an ACL, persistence), as a site runs it: the events, the retained state and counters, the
/// commands. One broker per test.
@Suite(
    "turnstiled on a site's MQTT broker (CLI, real mosquitto)", .serialized,
    .enabled(if: Broker.enabled, "mosquitto, openssl or libmosquitto is not installed"))
struct SiteMQTTCLITests {
    /// A daemon's start, a message through the broker, a drain: waited for, never slept (see
    /// `TestTimeouts.daemon`).
    static let patience: Duration = TestTimeouts.daemon
    /// How long a test listens to show that something does not come (a duplicate discovery
    /// config, a message of a daemon that yielded its node). A slow machine can only make such a
    /// message come later than the window, so be missed: the test then shows less, and never
    /// fails a correct daemon.
    static let quietWindow: Duration = .milliseconds(500)

    /// A daemon of node `node` on the broker, with its database and control socket in `directory`;
    /// `tls`: over the broker's TLS port with these options instead of plain MQTT.
    static func arguments(
        _ broker: Broker, _ directory: TemporaryDirectory, node: String = "node1", user: String = "node1", tls: [String]? = nil
    ) -> [String] {
        [
            "run", "--board", repositoryPath("boards/sim.toml"), "--json", "--no-http",
            "--database", directory.url.appendingPathComponent("\(node).sqlite").path,
            "--control-socket", socket(directory, node: node),
            "--mqtt", tls == nil ? "mqtt://127.0.0.1:\(broker.plainPort)" : "mqtts://127.0.0.1:\(broker.tlsPort)",
            "--mqtt-prefix", "nodes", "--mqtt-node", node,
            "--mqtt-username", user, "--mqtt-password-file", broker.file("\(user).password"),
        ] + (tls ?? [])
    }

    /// A reader's client (read-only in the ACL) with a persistent session, subscribed to `filters`.
    static func watcher(_ broker: Broker, id: String, user: String = "reader", _ filters: [String]) async throws -> (MQTTClient, EventLog) {
        let (client, log) = try MQTTClient.logged(broker.configuration(user: user, clientID: id))
        for filter in filters { try client.subscribe(filter) }
        try client.start()
        let subscribed = await log.first(within: patience) { $0.subscriptionID != nil }
        try #require(subscribed != nil, "the watcher never subscribed; broker log:\n\(broker.log)")
        return (client, log)
    }

    static func ctl(_ directory: TemporaryDirectory, _ words: [String], node: String = "node1") async throws -> Turnstiled.Run {
        try await Turnstiled.run(["ctl", "--socket", socket(directory, node: node)] + words)
    }

    /// `fleet --http` on the same broker: `/site.json` lists `nodes` (the first stopped, the rest
    /// online) with each one's health (outbox, no problems, since when), the sums are `sums`,
    /// the page has a row per node; SIGTERM stops it with status 0.
    static func expectSitePage(reader: [String], nodes: [String], sums: [String: Int]) async throws {
        let fleet = try BackgroundTurnstiled(["fleet", "--http", "127.0.0.1:0"] + reader.dropLast(2))
        defer { fleet.send(SIGKILL) }
        let listening = await fleet.wait(for: patience) { $0.stderr.contains("site page of") && $0.stderr.contains(" on http://127.0.0.1:") }
        try #require(listening, "\(fleet.description)")
        let port = try #require(fleet.stderr.split(separator: "http://127.0.0.1:").last.flatMap { Int($0.prefix { $0.isNumber }) }, "\(fleet.description)")
        // Each daemon sends its health within a second of connecting; the stopped one said its
        // last before going.
        var controllers: [[String: Any]] = []
        var site: [String: Any] = [:]
        let deadline = ContinuousClock.now + patience
        repeat {
            if let (status, body) = LoopbackGet.get(port: port, path: "/site.json"), status == 200,
                let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] {
                site = object
                controllers = object["controllers"] as? [[String: Any]] ?? []
                if controllers.count == nodes.count, controllers.allSatisfy({ $0["outbox"] as? Int != nil }) { break }
            }
            usleep(100_000)
        } while ContinuousClock.now < deadline
        #expect(controllers.compactMap { $0["node"] as? String } == nodes, "\(site)")
        #expect(controllers.map { $0["availability"] as? String } == ["offline"] + Array(repeating: "online", count: nodes.count - 1), "\(site)")
        #expect(controllers.allSatisfy { $0["outbox"] as? Int == 0 && ($0["problems"] as? [String]) == [] }, "\(site)")
        #expect(controllers.dropFirst().allSatisfy { $0["availabilitySince"] is String && $0["phase"] as? String == "running" }, "\(site)")
        #expect((site["sums"] as? [String: [String: Int]])?["turnstile"] == sums, "\(site)")
        #expect(site["connected"] as? Bool == true, "\(site)")
        let page = try #require(LoopbackGet.get(port: port, path: "/"), "\(fleet.description)")
        #expect(page.status == 200)
        for node in nodes { #expect(page.body.contains(#"<tr data-node="\#(node)""#), "\(node): \(page.body)") }
        #expect(LoopbackGet.get(port: port, path: "/healthz")?.status == 200)
        fleet.send(SIGTERM)
        #expect(await fleet.waitForExit(timeout: patience) == 0, "\(fleet.description)")
    }

    /// Pulses `role` over `node`'s control socket; nil once the daemon took it, else what went wrong.
    static func pulse(_ directory: TemporaryDirectory, _ role: RoleName, node: String = "node1") -> String? {
        do {
            let client = try ControlClient<TurnstileApplication>(path: socket(directory, node: node))
            try client.send(ControlRequestLine(id: 1, request: .pulse(role)))
            guard let reply = try client.nextReply(timeoutSeconds: Double(patience.components.seconds)) else { return "the daemon closed the connection" }
            if case .failure(let failure) = reply.reply { return "refused: \(failure)" }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The node's control socket: named by the start of its id (a socket's path has room for
    /// 107 bytes, a node id for 64).
    static func socket(_ directory: TemporaryDirectory, node: String) -> String {
        directory.url.appendingPathComponent("\(node.prefix(12)).sock").path
    }

    static func waitReady(_ daemon: BackgroundTurnstiled) async throws {
        let ready = await daemon.wait(for: patience) { $0.records.contains { $0["type"] as? String == "ready" } }
        try #require(ready, "\(daemon.description)")
    }

    /// The JSON objects received on `topic`, in order of arrival.
    static func objects(_ log: EventLog, topic: String) -> [[String: Any]] {
        log.all.compactMap(\.receivedMessage).filter { $0.topic == topic }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any]
        }
    }

    static func totals(ofDatabase path: String) async throws -> [String: Int] {
        let stats = try await Turnstiled.run(["stats", "--database", path, "--json"])
        try #require(stats.status == 0, "\(stats)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        return try #require(object["totals"] as? [String: Int], "\(stats.stdout)")
    }

    @Test("every counted event arrives once after dedupe, in order, through broker outages and kill -9 at random moments; the retained counters equal stats")
    func nothingLostNothingDoubled() async throws {
        let seed = ProcessInfo.processInfo.environment["SITE_MQTT_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        let context = "seed \(seed) (SITE_MQTT_SEED=\(seed) repeats it)"
        let broker = try Broker.start()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        let (watcher, log) = try await Self.watcher(broker, id: "site-watch", ["nodes/node1/events", "nodes/node1/counters"])
        defer { watcher.stop() }

        var daemon = try BackgroundTurnstiled(Self.arguments(broker, directory))
        try await Self.waitReady(daemon)
        // The first event is counted and acknowledged before the first outage.
        let connected = await daemon.wait(for: Self.patience) { $0.stderr.contains("MQTT: connected") }
        try #require(connected, "\(daemon.description)")
        var brokerDown = false
        var outages = 0, kills = 0
        for step in 0..<40 {
            // Over the control socket from here, not through `ctl` (a process each): the test is
            // about delivery, and 40 processes of an instrumented build cost minutes under load.
            let pulse = Self.pulse(directory, step % 2 == 0 ? .coin : .push)
            try #require(pulse == nil, "\(context)\n\(pulse ?? "")\n\(daemon.description)")
            usleep(UInt32(random.next(in: 20_000...120_000)))
            // Each case happens at least once (an outage, a kill while the broker is away, a
            // kill while it is up), and more at random moments.
            let forced: UInt64? = [8: 0, 14: 2, 20: 1, 30: 2][step]
            switch forced ?? random.next(in: 0...9) {
            case 0 where !brokerDown:
                try broker.pause()
                brokerDown = true
                outages += 1
            case 1 where brokerDown:
                try broker.resume()
                brokerDown = false
            case 2:
                daemon.send(SIGKILL)
                _ = await daemon.waitForExit(timeout: Self.patience)
                kills += 1
                daemon = try BackgroundTurnstiled(Self.arguments(broker, directory))
                try await Self.waitReady(daemon)
            default: break
            }
        }
        if brokerDown { try broker.resume() }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: Self.patience) == 0, "\(context)\n\(daemon.description)")
        // A stop that found the broker away (or not yet reconnected after its backoff) says what
        // it left in the outbox; the next start publishes it, and stops only once the broker
        // has it all.
        daemon = try BackgroundTurnstiled(Self.arguments(broker, directory))
        try await Self.waitReady(daemon)
        let reconnected = await daemon.wait(for: Self.patience) { $0.stderr.contains("MQTT: connected") }
        try #require(reconnected, "\(context)\n\(daemon.description)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: Self.patience) == 0, "\(context)\n\(daemon.description)")
        #expect(!daemon.stderr.contains("stay in the outbox"), "the last stop left nothing behind: \(daemon.stderr)")

        let database = directory.url.appendingPathComponent("node1.sqlite").path
        let totals = try await Self.totals(ofDatabase: database)
        let counted = totals.values.reduce(0, +)
        #expect(counted > 0, "\(context): nothing was counted")
        // The node's last run published what was left and said offline only after the broker
        // acknowledged it; the watcher may still be receiving.
        let deadline = ContinuousClock.now + Self.patience
        var events: [[String: Any]] = []
        var unique: [Int] = []
        while ContinuousClock.now < deadline {
            events = Self.objects(log, topic: "nodes/node1/events")
            var seen = Set<Int>()
            unique = events.compactMap { $0["sequence"] as? Int }.filter { seen.insert($0).inserted }
            if events.compactMap({ $0["amount"] as? Int }).count == events.count,
                unique.count > 0, Self.sumByKind(events, unique: true) == totals.filter({ $0.value > 0 }) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let summary = "\(context); \(outages) outage(s), \(kills) kill(s); \(events.count) messages, \(unique.count) events; stats \(totals)"
        #expect(outages >= 1 && kills >= 2, "\(summary)")
        #expect(unique == Array(1...max(1, unique.count)), "every sequence from 1, each first seen in order: \(summary)")
        #expect(Self.sumByKind(events, unique: true) == totals.filter { $0.value > 0 }, "the events add up to stats: \(summary)")
        let counters = Self.objects(log, topic: "nodes/node1/counters").last
        #expect(counters?["totals"] as? [String: Int] == totals, "the retained counters equal stats: \(summary)")
    }

    /// Each kind's sum over the events, each sequence once.
    static func sumByKind(_ events: [[String: Any]], unique: Bool) -> [String: Int] {
        var seen = Set<Int>()
        var sums: [String: Int] = [:]
        for event in events {
            guard let sequence = event["sequence"] as? Int, let kind = event["kind"] as? String, let amount = event["amount"] as? Int else { continue }
            if unique && !seen.insert(sequence).inserted { continue }
            sums[kind, default: 0] += amount
        }
        return sums
    }

    @Test("commands: one node's topic and the site-wide one act as ctl would; malformed, oversized and unknown ones get error replies and change nothing; clients outside the ACL cannot command")
    func commands() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        let (watcher, log) = try await Self.watcher(broker, id: "site-results", ["nodes/node1/result", "nodes/node1/state"])
        defer { watcher.stop() }
        let daemon = try BackgroundTurnstiled(Self.arguments(broker, directory))
        try await Self.waitReady(daemon)
        let online = await log.first(within: Self.patience) { $0.receivedMessage?.topic == "nodes/node1/state" }
        try #require(online != nil, "no retained state: \(daemon.description)")

        let (operatorClient, operatorLog) = try MQTTClient.logged(broker.configuration(user: "operator", clientID: "site-operator"))
        try operatorClient.start()
        defer { operatorClient.stop() }
        try #require(await operatorLog.first(within: Self.patience) { $0.isConnected } != nil)

        // Not requests, or not ones the daemon takes: each answered with an error, in order.
        var corpus: [[UInt8]] = [
            [], Array("garbage".utf8), Array("{}".utf8), Array("[1]".utf8), Array(#"{"v":1}"#.utf8),
            Array(#"{"v":1,"id":1,"command":"nope"}"#.utf8), Array(#"{"v":1,"id":2,"command":"emergency","on":"yes"}"#.utf8),
            Array(#"{"v":1,"id":3,"id":4,"command":"repair"}"#.utf8), Array(#"{"v":99,"command":"status"}"#.utf8),
            [0xFF, 0xFE, 0x7B], Array(repeating: UInt8(ascii: "["), count: 3_000),
            Array(#"{"v":1,"command":"repair","pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 8_000) + Array(#""}"#.utf8),
            Array(#"{"v":1,"id":5,"command":"events","follow":true}"#.utf8),
        ]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<8 { corpus.append((0..<Int.random(in: 1...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }) }
        for payload in corpus {
            try operatorClient.publish(topic: "nodes/node1/command", payload: payload)
        }
        let replied = await log.first(within: Self.patience) { _ in Self.objects(log, topic: "nodes/node1/result").count >= corpus.count } != nil
        let results = Self.objects(log, topic: "nodes/node1/result")
        #expect(replied && results.count == corpus.count, "one reply per command: \(results)\n\(daemon.description)")
        #expect(results.allSatisfy { $0["ok"] as? Bool == false && ($0["error"] as? [String: Any])?["code"] is String }, "\(results)")
        #expect(!daemon.stdout.contains(#""type":"transition""#), "no command of the corpus changed anything: \(daemon.stdout)")

        // Outside the ACL: a reader and another node publish into node1's command topic; the
        // broker drops both (MQTT 3.1.1 acknowledges them all the same).
        for (user, id) in [("reader", "site-nosy-reader"), ("node2", "site-nosy-node2")] {
            let (nosy, nosyLog) = try MQTTClient.logged(broker.configuration(user: user, clientID: id))
            try nosy.start()
            try #require(await nosyLog.first(within: Self.patience) { $0.isConnected } != nil)
            let message = try nosy.publish(topic: "nodes/node1/command", payload: Array(#"{"v":1,"id":66,"command":"fault"}"#.utf8))
            _ = await nosyLog.first(within: Self.patience) { $0 == .published(message) }
            nosy.stop()
        }

        // The site-wide topic reaches the node: emergency on, then off by the node's own topic.
        try operatorClient.publish(topic: "nodes/all/command", payload: Array(#"{"v":1,"id":10,"command":"emergency","on":true}"#.utf8))
        let accepted = await log.first(within: Self.patience) { _ in
            Self.objects(log, topic: "nodes/node1/result").contains { $0["id"] as? Int == 10 }
        }
        #expect(accepted != nil, "\(daemon.description)")
        let reply = Self.objects(log, topic: "nodes/node1/result").first { $0["id"] as? Int == 10 }
        #expect(reply?["ok"] as? Bool == true && reply?["accepted"] as? String == "emergencyOn", "\(String(describing: reply))")
        let emergency = await log.first(within: Self.patience) { _ in
            Self.objects(log, topic: "nodes/node1/state").last?["state"] as? String == "emergency"
        }
        #expect(emergency != nil, "the retained state follows: \(Self.objects(log, topic: "nodes/node1/state"))")
        #expect(!Self.objects(log, topic: "nodes/node1/result").contains { $0["id"] as? Int == 66 }, "no reply to a command the ACL refused")
        #expect(!daemon.stdout.contains(#""event":"fault""#), "the refused fault never reached the controller: \(daemon.stdout)")

        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: Self.patience) == 0, "\(daemon.description)")
    }

    @Test("Home Assistant discovery: one retained device config per node (its schema is checked in SiteDiscoveryTests), the earlier per-entity configs cleared, sent again on Home Assistant's birth message; every button's payload is a command the node takes")
    func homeAssistantDiscovery() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        let (watcher, log) = try await Self.watcher(broker, id: "site-ha", ["homeassistant/#", "nodes/node1/result", "nodes/node1/inputs"])
        defer { watcher.stop() }
        let daemon = try BackgroundTurnstiled(Self.arguments(broker, directory))
        try await Self.waitReady(daemon)
        let deviceTopic = "homeassistant/device/nodes_2fnode1/config"
        let devices = { log.all.compactMap(\.receivedMessage).filter { $0.topic == deviceTopic && !$0.payload.isEmpty } }
        let first = await log.first(within: Self.patience) { _ in !devices().isEmpty }
        try #require(first != nil, "no device config: \(log.all.compactMap(\.receivedMessage).map(\.topic))\n\(daemon.description)")
        try await Task.sleep(for: Self.quietWindow)
        let announced = log.all.compactMap(\.receivedMessage).filter { $0.topic.hasPrefix("homeassistant/") }
        #expect(devices().count == 1, "one device config: \(devices().count)")
        // The per-entity form of earlier versions, cleared: empty payloads on its topics.
        let cleared = announced.filter { $0.topic != deviceTopic }
        #expect(!cleared.isEmpty && cleared.allSatisfy { $0.payload.isEmpty && $0.topic.hasSuffix("/config") }, "\(cleared.map(\.topic))")
        // Retained: a client that subscribes later (Home Assistant started after the node) gets
        // the device config, and nothing of the cleared form.
        let (late, lateLog) = try await Self.watcher(broker, id: "site-ha-late", ["homeassistant/#"])
        _ = await lateLog.first(within: Self.patience) { _ in !lateLog.all.compactMap(\.receivedMessage).isEmpty }
        try await Task.sleep(for: Self.quietWindow)
        late.stop()
        let lateMessages = lateLog.all.compactMap(\.receivedMessage)
        #expect(lateMessages.map(\.topic) == [deviceTopic] && lateMessages.allSatisfy(\.retained), "\(lateMessages.map { "\($0.topic) \($0.retained)" })")
        let device = try #require(devices().first)
        let config = try #require(try JSONSerialization.jsonObject(with: Data(device.payload)) as? [String: Any])
        let components = try #require(config["cmps"] as? [String: [String: Any]])
        for (object, component) in components where component["p"] as? String == "button" {
            let press = try #require(component["payload_press"] as? String, "\(object)")
            let before = Self.objects(log, topic: "nodes/node1/result").count
            let (panel, panelLog) = try MQTTClient.logged(broker.configuration(user: "operator", clientID: "site-ha-press"))
            try panel.start()
            try #require(await panelLog.first(within: Self.patience) { $0.isConnected } != nil)
            try panel.publish(topic: "nodes/node1/command", payload: Array(press.utf8))
            let answered = await log.first(within: Self.patience) { _ in Self.objects(log, topic: "nodes/node1/result").count > before }
            panel.stop()
            #expect(answered != nil && Self.objects(log, topic: "nodes/node1/result").last?["ok"] as? Bool == true,
                    "\(press): \(Self.objects(log, topic: "nodes/node1/result"))")
        }
        #expect(components.values.filter { $0["p"] as? String == "button" }.count == 4)
        // The fire alarm's binary sensor reads the node's inputs: the retained message names the
        // condition, on or off, as its value template expects.
        let sensor = try #require(components["input-emergency"], "\(components.keys.sorted())")
        #expect(sensor["state_topic"] as? String == "nodes/node1/inputs")
        let inputs = await log.first(within: Self.patience) { _ in !Self.objects(log, topic: "nodes/node1/inputs").isEmpty }
        #expect(inputs != nil, "no inputs message")
        let last = log.all.compactMap(\.receivedMessage).last { $0.topic == "nodes/node1/inputs" }.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(last.map { $0.contains(#""levels":{"emergency":false}"#) || $0.contains(#""levels":{"emergency":true}"#) } == true, "\(last ?? "none")")

        // Home Assistant restarts: its birth message asks every device to announce itself again.
        let (assistant, assistantLog) = try MQTTClient.logged(broker.configuration(user: "site", clientID: "site-ha-birth"))
        try assistant.start()
        defer { assistant.stop() }
        try #require(await assistantLog.first(within: Self.patience) { $0.isConnected } != nil)
        try assistant.publish(topic: "homeassistant/status", payload: Array("online".utf8))
        let again = await log.first(within: Self.patience) { _ in devices().count >= 2 }
        #expect(again != nil, "announced again: \(devices().count)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: Self.patience) == 0, "\(daemon.description)")
    }

    @Test("fleet: every controller on the broker with its availability, state and totals; the site's sums equal the sum of every daemon's stats")
    func fleet() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        // The third's id is longer than MQTT 3.1.1's 23-byte client ids: its client id is derived.
        let long = "gate-3.north-entrance.car-park-level-3.lane-2.exit-barrier-ab"
        let nodes = [("node1", "node1"), ("node2", "node2"), (long, "site")]
        var daemons: [BackgroundTurnstiled] = []
        for (node, user) in nodes {
            let daemon = try BackgroundTurnstiled(Self.arguments(broker, directory, node: node, user: user))
            try await Self.waitReady(daemon)
            daemons.append(daemon)
        }
        for (index, (node, _)) in nodes.enumerated() {
            for step in 0..<(2 + index * 2) {
                let pulse = Self.pulse(directory, step % 2 == 0 ? .coin : .push, node: node)
                #expect(pulse == nil, "\(pulse ?? "")")
            }
        }
        // Each daemon has taken its pulses, each a transition (a pulse is a simulated edge, taken
        // after its bounce and debounce: this used to be a fixed second before the stop, which
        // a loaded machine could outlast, and the stop then came before the last push).
        for (index, daemon) in daemons.enumerated() {
            let taken = await daemon.wait(for: Self.patience) { $0.records.filter { $0["type"] as? String == "transition" }.count >= 2 + index * 2 }
            #expect(taken, "\(daemon.description)")
        }
        // The last one stops: its stop publishes what is left before it exits.
        daemons.last!.send(SIGTERM)
        await #expect(daemons.last!.waitForExit(timeout: Self.patience) == 0)
        // `--wait 1`: fleet's own time to collect the retained messages, which come right after
        // its subscription (a few dozen over loopback).
        let reader = ["--mqtt", "mqtt://127.0.0.1:\(broker.plainPort)", "--mqtt-prefix", "nodes", "--mqtt-username", "reader",
                      "--mqtt-password-file", broker.file("reader.password"), "--wait", "1"]
        // The two still running publish their counters after they commit, in their own time
        // (this used to be a fixed second, then one look): look again, the databases and the
        // broker, until the sums agree and every node is seen locked, bounded by `patience`.
        var expected: [String: Int] = [:]
        var view: Turnstiled.Run
        var site: [String: Any]
        let deadline = ContinuousClock.now + Self.patience
        repeat {
            expected = [:]
            for (node, _) in nodes {
                await expected.merge(try Self.totals(ofDatabase: directory.url.appendingPathComponent("\(node).sqlite").path), uniquingKeysWith: +)
            }
            view = try await Turnstiled.run(["fleet", "--json"] + reader)
            try #require(view.status == 0, "\(view)")
            site = try #require(try JSONSerialization.jsonObject(with: Data(view.stdout.utf8)) as? [String: Any], "\(view)")
            let states = (site["controllers"] as? [[String: Any]])?.map { $0["state"] as? String }
            if (site["sums"] as? [String: [String: Int]])?["turnstile"] == expected, states == Array(repeating: "locked", count: nodes.count) { break }
        } while ContinuousClock.now < deadline
        let controllers = try #require(site["controllers"] as? [[String: Any]])
        #expect(controllers.compactMap { $0["node"] as? String } == [long, "node1", "node2"], "\(controllers)")
        #expect(controllers.map { $0["availability"] as? String } == ["offline", "online", "online"], "\(controllers)")
        #expect(controllers.allSatisfy { $0["state"] as? String == "locked" && $0["lastEventAgeSeconds"] is Double }, "\(controllers)")
        #expect(site["online"] as? Int == 2)
        #expect((site["sums"] as? [String: [String: Int]])?["turnstile"] == expected, "fleet sums \(String(describing: site["sums"])) vs stats \(expected)")
        let table = try await Turnstiled.run(["fleet"] + reader)
        #expect(table.status == 0 && table.stdout.contains("site: 3 controller(s), 2 online") && table.stdout.contains(long), "\(table)")
        try await Self.expectSitePage(reader: reader, nodes: [long, "node1", "node2"], sums: expected)
        for daemon in daemons.dropLast() {
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit(timeout: Self.patience) == 0, "\(daemon.description)")
        }
        let unreachable = try await Turnstiled.run(["fleet", "--mqtt", "mqtt://127.0.0.1:1", "--wait", "0.1"])
        #expect(unreachable.status == 1 && unreachable.stderr.contains("cannot reach"), "\(unreachable)")
    }

    @Test("fleet --retire: an offline node's retained messages and Home Assistant device are cleared and checked on the broker; an online node is refused (status 1), contradicting options too (64)")
    func fleetRetire() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        var daemons: [BackgroundTurnstiled] = []
        for node in ["node1", "node2"] {
            let daemon = try BackgroundTurnstiled(Self.arguments(broker, directory, node: node, user: node))
            try await Self.waitReady(daemon)
            daemons.append(daemon)
        }
        let device = "homeassistant/device/nodes_2fnode2/config"
        // Home Assistant's device config is retained before node2 stops (a watcher sees it).
        let (watcher, log) = try await Self.watcher(broker, id: "site-retire", ["homeassistant/device/#", "nodes/+/availability"])
        defer { watcher.stop() }
        let announced = await log.first(within: Self.patience) { _ in
            log.all.compactMap(\.receivedMessage).contains { $0.topic == device && !$0.payload.isEmpty }
        }
        try #require(announced != nil, "node2 never announced its device")
        daemons[1].send(SIGTERM)
        await #expect(daemons[1].waitForExit(timeout: Self.patience) == 0, "\(daemons[1].description)")
        func login(_ user: String) -> [String] {
            ["--mqtt", "mqtt://127.0.0.1:\(broker.plainPort)", "--mqtt-prefix", "nodes", "--mqtt-username", user,
             "--mqtt-password-file", broker.file("\(user).password"), "--wait", "1"]
        }

        let online = try await Turnstiled.run(["fleet", "--retire", "node1"] + login("site"))
        #expect(online.status == 1 && online.stderr.contains("'node1' is online") && online.stderr.contains("stop its daemon first"), "\(online)")
        // The other refusals (nothing kept, a login whose clearings the ACL drops, a broker that
        // is not there) are FleetSessionTests', on the in-memory broker.

        let retired = try await Turnstiled.run(["fleet", "--retire", "node2"] + login("site"))
        #expect(retired.status == 0, "\(retired)")
        #expect(retired.stdout.contains("retired 'node2': cleared nodes/node2/state, nodes/node2/counters, nodes/node2/health, nodes/node2/inputs, nodes/node2/claim, \(device), nodes/node2/availability"),
                "\(retired)")
        // Nothing of node2 is retained any more: a client that subscribes now gets node1 alone.
        let (late, lateLog) = try await Self.watcher(broker, id: "site-retire-late", ["nodes/#", "homeassistant/device/#"])
        _ = await lateLog.first(within: Self.patience) { _ in lateLog.all.compactMap(\.receivedMessage).contains { $0.topic.hasPrefix("nodes/node1/") } }
        try await Task.sleep(for: Self.quietWindow)
        late.stop()
        let retained = lateLog.all.compactMap(\.receivedMessage).map(\.topic)
        #expect(!retained.contains { $0.contains("node2") }, "\(retained)")
        #expect(retained.contains("homeassistant/device/nodes_2fnode1/config"), "\(retained)")
        let view = try await Turnstiled.run(["fleet", "--json"] + login("reader"))
        let site = try #require(try JSONSerialization.jsonObject(with: Data(view.stdout.utf8)) as? [String: Any], "\(view)")
        #expect((site["controllers"] as? [[String: Any]])?.compactMap { $0["node"] as? String } == ["node1"], "\(view)")

        for (arguments, message) in [(["--retire", "node2", "--json"], "neither --json nor --follow"), (["--retire", "all"], "--retire"),
                                     (["--retire", "node2", "--mqtt-discovery-prefix", "home/+"], "--mqtt-discovery-prefix")] {
            let refused = try await Turnstiled.run(["fleet"] + arguments + login("site"))
            #expect(refused.status == 64 && refused.stderr.contains(message), "\(arguments): \(refused)")
        }
        daemons[0].send(SIGTERM)
        await #expect(daemons[0].waitForExit(timeout: Self.patience) == 0, "\(daemons[0].description)")
    }

    @Test("fleet of what someone else left retained: a 200 KB availability is not carried, said so; a node 'gate 7' is listed as no node id and --retire clears it; --retire all names --retire once")
    func fleetOfForeignRetainedMessages() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let (writer, writerLog) = try MQTTClient.logged(broker.configuration(user: "site", clientID: "site-foreign"))
        try writer.start()
        defer { writer.stop() }
        try #require(await writerLog.first(within: Self.patience) { $0.isConnected } != nil)
        let huge = MQTTLimits.maxPayloadBytes - 1_024
        var sent = [
            try writer.publish(topic: "nodes/big/availability", payload: Array(repeating: UInt8(ascii: "x"), count: huge), retain: true),
            try writer.publish(topic: "nodes/gate 7/availability", payload: Array("offline".utf8), retain: true),
        ]
        sent.append(try writer.publish(topic: "nodes/gate 7/state", payload: Array(#"{"app":"gate","gauges":{},"node":"gate 7","state":"closed"}"#.utf8), retain: true))
        for id in sent { try #require(await writerLog.first(within: Self.patience) { $0 == .published(id) } != nil) }
        func login(_ user: String) -> [String] {
            ["--mqtt", "mqtt://127.0.0.1:\(broker.plainPort)", "--mqtt-prefix", "nodes", "--mqtt-username", user,
             "--mqtt-password-file", broker.file("\(user).password"), "--wait", "1"]
        }

        let view = try await Turnstiled.run(["fleet", "--json"] + login("reader"))
        #expect(view.status == 0, "\(view)")
        #expect(view.stdout.utf8.count < 8_192, "fleet --json carried \(view.stdout.utf8.count) bytes")
        let site = try #require(try JSONSerialization.jsonObject(with: Data(view.stdout.utf8)) as? [String: Any], "\(view)")
        let controllers = site["controllers"] as? [[String: Any]] ?? []
        let big = controllers.first { $0["node"] as? String == "big" }
        #expect(big?["availability"] == nil, "\(view.stdout)")
        #expect(big?["notes"] as? [String] == ["availability: a message of \(huge) bytes, over fleet's \(FleetLimits.maxPayloadBytes): not read"], "\(view.stdout)")
        let gate = controllers.first { $0["node"] as? String == "gate 7" }
        #expect(gate?["state"] as? String == "closed", "\(view.stdout)")
        #expect((gate?["notes"] as? [String])?.first?.hasPrefix("not a node id, as it holds ' ' (U+0020)") == true, "\(view.stdout)")
        let table = try await Turnstiled.run(["fleet"] + login("reader"))
        #expect(table.status == 0 && table.stdout.utf8.count < 4_096 && table.stdout.contains("big: availability: a message of"), "\(table)")

        let retired = try await Turnstiled.run(["fleet", "--retire", "gate 7"] + login("site"))
        #expect(retired.status == 0 && retired.stdout.contains("retired 'gate 7': cleared nodes/gate 7/state, nodes/gate 7/availability"), "\(retired)")
        let after = try await Turnstiled.run(["fleet", "--json"] + login("reader"))
        let left = try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any]
        #expect((left?["controllers"] as? [[String: Any]])?.compactMap { $0["node"] as? String } == ["big"], "\(after)")
        let all = try await Turnstiled.run(["fleet", "--retire", "all"] + login("site"))
        #expect(all.status == 64 && all.stderr.contains("--retire 'all' is the topic level that reaches every node"), "\(all)")
        #expect(!all.stderr.contains("'all' 'all'") && !all.stderr.contains("--mqtt-node"), "\(all)")
    }

    @Test("over TLS: mqtts with the site's CA and a client certificate publishes; a broker whose certificate another CA signed is refused, named, and tried again")
    func overTLS() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        let (watcher, log) = try await Self.watcher(broker, id: "site-tls", ["nodes/node1/events"])
        defer { watcher.stop() }
        let certificate = ["--mqtt-cert-file", broker.file("node1.crt"), "--mqtt-key-file", broker.file("node1.key")]
        let daemon = try BackgroundTurnstiled(Self.arguments(broker, directory, tls: ["--mqtt-ca-file", broker.file("ca.crt")] + certificate))
        try await Self.waitReady(daemon)
        try #require(await daemon.wait(for: Self.patience) { $0.stderr.contains("MQTT: connected to mqtts://") }, "\(daemon.description)")
        await #expect(try Self.ctl(directory, ["pulse", "coin"]).status == 0)
        let event = await log.first(within: Self.patience) { _ in Self.objects(log, topic: "nodes/node1/events").count == 1 }
        #expect(event != nil && Self.objects(log, topic: "nodes/node1/events").first?["kind"] as? String == "coins", "\(daemon.description)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: Self.patience) == 0, "\(daemon.description)")

        let impostor = try TemporaryDirectory()
        let refused = try BackgroundTurnstiled(Self.arguments(broker, impostor, tls: ["--mqtt-ca-file", broker.file("other-ca.crt")] + certificate))
        try await Self.waitReady(refused)
        let named = await refused.wait(for: Self.patience) { $0.stderr.contains("mqtts://127.0.0.1:\(broker.tlsPort)") && $0.stderr.contains("trying again") }
        #expect(named && !refused.stderr.contains("MQTT: connected"), "\(refused.description)")
        refused.send(SIGTERM)
        #expect(await refused.waitForExit(timeout: Self.patience) == 0, "\(refused.description)")
    }

    /// The snapshot's `site` object from `ctl status --json`.
    static func siteStatus(_ directory: TemporaryDirectory) async throws -> [String: Any] {
        let status = try await Self.ctl(directory, ["--json", "status"])
        try #require(status.status == 0, "\(status)")
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], "\(status)")
        let snapshot = (reply["status"] as? [String: Any]) ?? reply
        return try #require(snapshot["site"] as? [String: Any], "\(status.stdout)")
    }

    /// The daemon's /metrics, over a plain TCP connection to the port its log names.
    static func metrics(_ daemon: BackgroundTurnstiled) throws -> String {
        let line = try #require(daemon.stderr.split(separator: "\n").first { $0.contains("metrics on http://127.0.0.1:") }, "\(daemon.description)")
        let port = try #require(UInt16(line.split(separator: ":").last?.filter(\.isNumber) ?? ""), "\(line)")
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0, "connect: errno \(errno)")
        let request = Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            response += buffer[..<count]
        }
        return String(decoding: response, as: UTF8.self)
    }

    @Test("two daemons with one --mqtt-node on one broker: the later one says so and stops publishing (log, /status, /metrics), the first goes on and says so; no event of the second is published under the node; a restart of the same node after a stop is no conflict")
    func nodeClaimedTwice() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let (first, second) = (try TemporaryDirectory(), try TemporaryDirectory())
        let (watcher, log) = try await Self.watcher(
            broker, id: "site-claims", ["nodes/node1/events", "nodes/node1/availability", "nodes/node1/claim", "nodes/node1/counters"])
        defer { watcher.stop() }
        func arguments(_ directory: TemporaryDirectory) -> [String] {
            Self.arguments(broker, directory).flatMap { $0 == "--no-http" ? ["--http", "127.0.0.1:0"] : [$0] }
        }
        let a = try BackgroundTurnstiled(arguments(first))
        try await Self.waitReady(a)
        try #require(await a.wait(for: Self.patience) { $0.stderr.contains("MQTT: connected") }, "\(a.description)")
        await #expect(try Self.ctl(first, ["pulse", "coin"]).status == 0)
        let published = await log.first(within: Self.patience) { _ in Self.objects(log, topic: "nodes/node1/events").count == 1 }
        try #require(published != nil, "\(a.description)")

        let b = try BackgroundTurnstiled(arguments(second))
        try await Self.waitReady(b)
        // b counts coins of its own at once: none may reach the broker as node1's.
        for _ in 0..<5 { await #expect(try Self.ctl(second, ["pulse", "coin"]).status == 0) }
        let yielded = await b.wait(for: Self.patience) { $0.stderr.contains("another controller uses node 'node1'") && $0.stderr.contains("stops publishing") }
        #expect(yielded, "the second says so: \(b.description)")
        let noticed = await a.wait(for: Self.patience) { $0.stderr.contains("another controller uses node 'node1'") && $0.stderr.contains("started after this one") }
        #expect(noticed, "the first says so: \(a.description)")
        let bSite = try await Self.siteStatus(second)
        let bConflict = bSite["conflict"] as? [String: Any]
        #expect(bConflict?["yielded"] as? Bool == true && bSite["connected"] as? Bool == false, "\(bSite)")
        let aSite = try await Self.siteStatus(first)
        #expect((aSite["conflict"] as? [String: Any])?["yielded"] as? Bool == false, "\(aSite)")
        #expect((aSite["conflict"] as? [String: Any])?["instance"] as? String == bSite["instance"] as? String, "a names b: \(aSite) \(bSite)")
        let (bMetrics, aMetrics) = (try Self.metrics(b), try Self.metrics(a))
        #expect(bMetrics.contains("turnstiled_mqtt_node_conflict 2"), "\(bMetrics)")
        #expect(aMetrics.contains("turnstiled_mqtt_node_conflict 1"), "\(aMetrics)")

        // a goes on publishing; b's events stay in its outbox.
        for _ in 0..<2 { await #expect(try Self.ctl(first, ["pulse", "coin"]).status == 0) }
        let three = await log.first(within: Self.patience) { _ in Self.objects(log, topic: "nodes/node1/events").count >= 3 }
        #expect(three != nil, "\(a.description)")
        // b had the time a's three took and two windows more to publish what it must not.
        try await Task.sleep(for: Self.quietWindow * 2)
        b.send(SIGTERM)
        #expect(await b.waitForExit(timeout: Self.patience) == 0, "\(b.description)")
        // b's 5 coins at least (a slow run, under a sanitizer, may see their credit expire too:
        // relock_timeout is 5 s): none was published.
        let unpublished = b.stderr.split(separator: "\n").first { $0.contains("event(s) stay in the outbox") }
        let waiting = unpublished.flatMap { line in line.split(separator: " ").firstIndex(of: "event(s)").map { Int(line.split(separator: " ")[$0 - 1]) } } ?? nil
        #expect((waiting ?? 0) >= 5, "\(b.stderr)")
        // The retained counters are a's alone: never b's 5 coins, never a drop (which Home
        // Assistant's total_increasing sensors would count as a reset).
        let coins = Self.objects(log, topic: "nodes/node1/counters").compactMap { ($0["totals"] as? [String: Int])?["coins"] }
        #expect(!coins.isEmpty && coins == coins.sorted() && !coins.contains(5), "\(coins)")
        let events = Self.objects(log, topic: "nodes/node1/events")
        let sessions = Set(events.compactMap { $0["session"] as? Int })
        // a's 3 coins (and, on a slow run, the expiry of their credit): a's alone, each once, in order.
        let sequences = events.compactMap { $0["sequence"] as? Int }
        #expect(sequences.count >= 3 && sequences == Array(1...sequences.count) && sessions.count == 1, "only a's events, each once: \(events)")
        // b's stop must not say a's node is offline; a message it sent would arrive within the window.
        try await Task.sleep(for: Self.quietWindow)
        let availability = log.all.compactMap(\.receivedMessage).filter { $0.topic == "nodes/node1/availability" }.last
        #expect(availability.map { String(decoding: $0.payload, as: UTF8.self) } == "online", "b left a's availability alone")
        a.send(SIGTERM)
        #expect(await a.waitForExit(timeout: Self.patience) == 0, "\(a.description)")

        // The same node started again where it ran: its last run's claim is no conflict.
        let again = try BackgroundTurnstiled(arguments(first))
        try await Self.waitReady(again)
        await #expect(try Self.ctl(first, ["pulse", "coin"]).status == 0)
        let before = sequences.count
        let fourth = await log.first(within: Self.patience) { _ in Self.objects(log, topic: "nodes/node1/events").count >= before + 1 }
        #expect(fourth != nil && !again.stderr.contains("another controller"), "\(again.description)")
        await #expect(try Self.siteStatus(first)["conflict"] == nil)
        again.send(SIGTERM)
        #expect(await again.waitForExit(timeout: Self.patience) == 0, "\(again.description)")
    }

    @Test("another client with the node's client id (the broker's takeover, again and again): the daemon counts the quick disconnects and says so in the log, /status and /metrics")
    func clientIDTakeover() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        let daemon = try BackgroundTurnstiled(Self.arguments(broker, directory).flatMap { $0 == "--no-http" ? ["--http", "127.0.0.1:0"] : [$0] })
        try await Self.waitReady(daemon)
        try #require(await daemon.wait(for: Self.patience) { $0.stderr.contains("MQTT: connected") }, "\(daemon.description)")
        let id = SiteTopics.clientID(daemon: "turnstiled", prefix: "nodes", node: "node1")
        let (impostor, _) = try MQTTClient.logged(broker.configuration(user: "node1", clientID: id))
        try impostor.start()
        let said = await daemon.wait(for: Self.patience) { $0.stderr.contains("another client probably uses client id \(id)") }
        impostor.stop()
        #expect(said, "\(daemon.description)")
        let quick = try await Self.siteStatus(directory)["quickDisconnects"] as? Int ?? 0
        #expect(quick >= SiteLimits.takeoverCount, "\(quick)")
        let metrics = try Self.metrics(daemon)
        #expect(metrics.contains("turnstiled_mqtt_quick_disconnects "), "\(metrics)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: Self.patience) == 0, "\(daemon.description)")
    }

    @Test("--mqtt is refused before anything runs: without --database, with a reserved or invalid node, plain text to another host unless named, an option without --mqtt")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        let board = repositoryPath("boards/sim.toml")
        let database = directory.url.appendingPathComponent("c.sqlite").path
        let cases: [([String], String)] = [
            (["--mqtt", "mqtt://127.0.0.1:1883"], "--mqtt needs --database"),
            (["--database", database, "--mqtt", "mqtt://127.0.0.1:1883", "--mqtt-node", "all"], "reaches every node"),
            (["--database", database, "--mqtt", "mqtt://127.0.0.1:1883", "--mqtt-node", "gate/1"], "--mqtt-node 'gate/1'"),
            (["--database", database, "--mqtt", "mqtt://127.0.0.1:1883", "--mqtt-prefix", "site//a"], "--mqtt-prefix 'site//a'"),
            (["--database", database, "--mqtt", "mqtt://10.1.2.3:1883"], "10.1.2.3"),
            (["--database", database, "--mqtt", "mqtt://10.1.2.3:1883", "--mqtt-plaintext-host", "10.9.9.9"], "is not the broker's host"),
            (["--database", database, "--mqtt-username", "gate"], "--mqtt-username needs --mqtt"),
            (["--database", database, "--mqtt", "mqtt://127.0.0.1:1883", "--mqtt-password-file", "/nonexistent"], "user name"),
        ]
        for (options, expected) in cases {
            let run = try await Turnstiled.run(["run", "--board", board, "--no-http"] + options)
            #expect(run.status == 64, "\(options): \(run)")
            #expect(run.stderr.contains(expected), "\(options) should say \(expected): \(run)")
        }
        #expect(!FileManager.default.fileExists(atPath: database), "nothing was created")
    }
}
