@testable import ControllerRuntime
@testable import ControllerSite
import ControllerDaemon
import ControllerFSM
import ControllerHost
import ControllerMQTT
import ControllerTestSupport
import Foundation
import Testing
import Turnstile

#if canImport(Glibc)
import Glibc
#endif

/// A discovery config is read as Home Assistant reads it, the keys it leaves
/// out included. For every platform the site announces, the test knows (from Home Assistant's
/// MQTT integration documentation, below) the defaults that give an entity a control; it
/// derives every control Home Assistant would show for each entity, and each must be one the
/// node answers: in-process, its payload is a request the node's parser takes; on a real
/// mosquitto, the in-process daemon is sent exactly what Home Assistant would send (the device
/// config read from the broker), answers each with `ok`, and the cover's Open moves its state.
/// Generated members: the turnstile's config (buttons, binary sensors, sensors, an event), a
/// gate announced as the parking barrier is (a cover opened by a command, with no command to
/// close or stop it) and one with all three commands.
@Suite("Home Assistant shows only the controls a node answers", .serialized)
struct HomeAssistantControlsTests {
    static let patience = TestTimeouts.daemon

    // MARK: What Home Assistant does with the keys a config leaves out

    /// A control Home Assistant shows when `topicKey` is in the config: it sends `payloadKey`'s
    /// value there, `defaultPayload` when the key is left out, and there is no control when the
    /// key is null.
    struct ControlKey: Sendable {
        var control: String
        var payloadKey: String
        var defaultPayload: String
        var topicKey = "command_topic"
    }

    /// One platform of Home Assistant's MQTT integration, as far as its defaults make controls
    /// or read states.
    struct Platform: Sendable {
        var controls: [ControlKey] = []
        /// Keys whose presence alone adds controls that send what no request of a node is (a
        /// cover's position slider, its tilt buttons): a config must leave them out.
        var controlTopics: [String] = []
        /// The payloads its state must be (a binary sensor's `payload_on` and `payload_off`,
        /// `ON` and `OFF` when left out): its template must render each.
        var statePayloads: [(key: String, defaultPayload: String)] = []
    }

    /// From https://www.home-assistant.io/integrations/ (`sensor.mqtt`, `binary_sensor.mqtt`,
    /// `event.mqtt`, `button.mqtt`, `cover.mqtt`, `switch.mqtt`; the cover's features as its
    /// MQTT cover sets them: Open, Close and Stop each while `command_topic` is set and its
    /// payload is not null). A platform the site announces that is not here fails the test
    /// until its defaults are written here.
    static let platforms: [String: Platform] = [
        "sensor": Platform(),
        "event": Platform(),
        "binary_sensor": Platform(statePayloads: [("payload_on", "ON"), ("payload_off", "OFF")]),
        "button": Platform(controls: [ControlKey(control: "press", payloadKey: "payload_press", defaultPayload: "PRESS")]),
        "cover": Platform(
            controls: [
                ControlKey(control: "open", payloadKey: "payload_open", defaultPayload: "OPEN"),
                ControlKey(control: "close", payloadKey: "payload_close", defaultPayload: "CLOSE"),
                ControlKey(control: "stop", payloadKey: "payload_stop", defaultPayload: "STOP"),
            ],
            controlTopics: ["set_position_topic", "tilt_command_topic"]),
        "switch": Platform(controls: [
            ControlKey(control: "on", payloadKey: "payload_on", defaultPayload: "ON"),
            ControlKey(control: "off", payloadKey: "payload_off", defaultPayload: "OFF"),
        ]),
    ]

    /// A control Home Assistant would show: what it sends, where.
    struct Control: CustomStringConvertible, Sendable {
        var object: String
        var platform: String
        var control: String
        var topic: String
        var payload: String
        var description: String { "\(object) (\(platform)) \(control): \(payload.debugDescription) on \(topic)" }
    }

    /// Every control Home Assistant would show for the device config `config`, and what it
    /// would make of the config otherwise: each problem in words.
    static func controls(_ config: [String: Any]) -> (controls: [Control], problems: [String]) {
        var controls: [Control] = []
        var problems: [String] = []
        let components = config["cmps"] as? [String: [String: Any]] ?? [:]
        if components.isEmpty { problems.append("no components: \(config)") }
        for (object, component) in components.sorted(by: { $0.key < $1.key }) {
            let name = component["p"] as? String ?? "?"
            guard let platform = platforms[name] else {
                problems.append("\(object): platform \(name) is announced, and this test does not know its defaults: write them from Home Assistant's documentation")
                continue
            }
            for key in platform.controlTopics where component[key] != nil {
                problems.append("\(object): \(key) adds a control no request of the node answers")
            }
            for key in platform.controls {
                guard let topic = component[key.topicKey] as? String else { continue }
                switch component[key.payloadKey] {
                case nil: controls.append(Control(object: object, platform: name, control: key.control, topic: topic, payload: key.defaultPayload))
                case is NSNull: continue
                case let payload as String: controls.append(Control(object: object, platform: name, control: key.control, topic: topic, payload: payload))
                case let other?: problems.append("\(object): \(key.payloadKey) is \(other), neither a payload nor null")
                }
            }
            for (key, defaultPayload) in platform.statePayloads {
                let payload = component[key] as? String ?? defaultPayload
                let template = component["value_template"] as? String ?? ""
                if !template.contains("'\(payload)'") {
                    problems.append("\(object): its state must be \(payload) (\(key)), which its template \(template.debugDescription) never renders")
                }
            }
        }
        return (controls, problems)
    }

    static func config<App: ControllerApplication>(_: App.Type) throws -> [String: Any] {
        let discovery = SiteDiscovery<App>(prefix: "homeassistant", topics: try SiteTopics(prefix: "nodes", node: "node1"))
        return try #require(try JSONSerialization.jsonObject(with: Data(SitePayload.encode(discovery.deviceConfig))) as? [String: Any])
    }

    /// Every control of `App`'s config is a request its parser takes: none is answered with an
    /// error before it reaches the controller.
    static func expectEveryControlParses<App: ControllerApplication>(_: App.Type, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let (controls, problems) = Self.controls(try config(App.self))
        #expect(problems.isEmpty, "\(App.name): \(problems)", sourceLocation: sourceLocation)
        for control in controls {
            var taken: ControlRequest<App>?
            let answered = ControlRequestLine<App>.answer(Array(control.payload.utf8)) { request in
                taken = request
                return .accepted("")
            }
            guard let taken else {
                Issue.record("\(App.name): \(control) is refused: \(answered.reply)", sourceLocation: sourceLocation)
                continue
            }
            if case .command = taken { continue }
            Issue.record("\(App.name): \(control) is \(String(describing: taken)), not a command", sourceLocation: sourceLocation)
        }
    }

    @Test("in-process: every control Home Assistant would show, its defaults counted, is a command the node's parser takes")
    func everyControlParses() throws {
        try Self.expectEveryControlParses(TurnstileApplication.self)
        try Self.expectEveryControlParses(Gate.self)
        try Self.expectEveryControlParses(FullGate.self)
    }

    @Test("the barrier's form: Open alone; Close and Stop stated null, not left to CLOSE and STOP; with commands for them, each is its request")
    func coverStatesWhatItLacks() throws {
        let gate = try #require(try Self.config(Gate.self)["cmps"] as? [String: [String: Any]])["cover"]
        #expect(gate?["payload_open"] as? String == #"{"command":"request","v":1}"#)
        #expect(gate?["payload_close"] is NSNull && gate?["payload_stop"] is NSNull, "\(String(describing: gate))")
        #expect(Self.controls(try Self.config(Gate.self)).controls.filter { $0.platform == "cover" }.map(\.control) == ["open"])
        let full = try #require(try Self.config(FullGate.self)["cmps"] as? [String: [String: Any]])["cover"]
        #expect(full?["payload_close"] as? String == #"{"command":"lower","v":1}"# && full?["payload_stop"] as? String == #"{"command":"halt","v":1}"#)
        #expect(Self.controls(try Self.config(FullGate.self)).controls.filter { $0.platform == "cover" }.map(\.control) == ["open", "close", "stop"])
    }

    // MARK: On a real broker

    @Test("on mosquitto: the gate in the barrier's form answers every control Home Assistant shows, and its Open opens it",
          .enabled(if: Broker.enabled, "mosquitto, openssl or libmosquitto is not installed"))
    func gateOnTheBroker() async throws {
        try await Self.expectEveryControlAnswered(Gate.self, board: Gate.board, opening: ["opening", "open"])
    }

    @Test("on mosquitto: a gate with commands to close and stop answers Open, Close, Stop and each button",
          .enabled(if: Broker.enabled, "mosquitto, openssl or libmosquitto is not installed"))
    func fullGateOnTheBroker() async throws {
        try await Self.expectEveryControlAnswered(FullGate.self, board: Gate.board, opening: ["opening", "open"])
    }

    @Test("on mosquitto: the turnstile answers every control Home Assistant shows (its buttons)",
          .enabled(if: Broker.enabled, "mosquitto, openssl or libmosquitto is not installed"))
    func turnstileOnTheBroker() async throws {
        try await Self.expectEveryControlAnswered(
            TurnstileApplication.self, board: try String(contentsOfFile: repositoryPath("boards/sim.toml"), encoding: .utf8), opening: [])
    }

    /// `App`'s daemon in-process on a throwaway mosquitto, as node `node1` under `nodes`: the
    /// device config read from the broker as Home Assistant reads it, every control it would
    /// show sent as an operator would (Home Assistant's login), each answered `ok`; the cover's
    /// Open (sent first, from the machine's first state) leaves the state in `opening`.
    static func expectEveryControlAnswered<App: ControllerApplication>(_: App.Type, board: String, opening: Set<String>) async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        let device = "homeassistant/device/nodes_2fnode1/config"
        let (watcher, log) = try MQTTClient.logged(broker.configuration(user: "reader", clientID: "ha-controls-watch"))
        defer { watcher.stop() }
        for filter in [device, "nodes/node1/result", "nodes/node1/state"] { try watcher.subscribe(filter) }
        try watcher.start()
        try #require(await log.first(within: patience) { $0.subscriptionID != nil } != nil, "the watcher never subscribed: \(broker.log)")

        var options = RunOptions(board: try directory.file("board.toml", board))
        options.database = directory.url.appendingPathComponent("node1.sqlite").path
        options.http = nil
        options.site.connection.url = "mqtt://127.0.0.1:\(broker.plainPort)"
        options.site.connection.prefix = "nodes"
        options.site.node = "node1"
        options.site.connection.username = "node1"
        options.site.connection.passwordFile = broker.file("node1.password")
        let daemon = InProcessDaemon<App>(options)
        func messages(_ topic: String) -> [MQTTMessage] { log.all.compactMap(\.receivedMessage).filter { $0.topic == topic } }
        func results() -> [[String: Any]] {
            messages("nodes/node1/result").compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        }
        func state() -> String? {
            messages("nodes/node1/state").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }?["state"] as? String
        }
        let announced = await log.first(within: patience) { _ in messages(device).contains { !$0.payload.isEmpty } && state() != nil }
        try #require(announced != nil, "no device config or state: \(daemon.log.lines)")
        let config = try #require(try JSONSerialization.jsonObject(with: Data(messages(device).last { !$0.payload.isEmpty }!.payload)) as? [String: Any])
        let (found, problems) = Self.controls(config)
        #expect(problems.isEmpty, "\(problems)")
        // The cover's Open first, while the machine is in its first state.
        let controls = found.filter { $0.platform == "cover" && $0.control == "open" } + found.filter { !($0.platform == "cover" && $0.control == "open") }
        #expect(!controls.isEmpty)

        let (panel, panelLog) = try MQTTClient.logged(broker.configuration(user: "operator", clientID: "ha-controls-panel"))
        defer { panel.stop() }
        try panel.start()
        try #require(await panelLog.first(within: patience) { $0.isConnected } != nil)
        for control in controls {
            var reply: [String: Any]?
            // Until the daemon runs, a command is refused as not_running: sent again then.
            let deadline = ContinuousClock.now + patience
            repeat {
                let before = results().count
                try panel.publish(topic: control.topic, payload: Array(control.payload.utf8))
                _ = await log.first(within: patience) { _ in results().count > before }
                reply = results().count > before ? results().last : nil
                let code = (reply?["error"] as? [String: Any])?["code"] as? String
                guard code == "not_running" else { break }
                try await Task.sleep(for: .milliseconds(100))
            } while ContinuousClock.now < deadline
            #expect(reply?["ok"] as? Bool == true && reply?["accepted"] is String, "\(control): \(String(describing: reply))")
            if control.platform == "cover" && control.control == "open" {
                let moved = await log.first(within: patience) { _ in state().map(opening.contains) ?? false }
                #expect(moved != nil, "\(control): the state stayed \(state() ?? "unknown")")
            }
        }
        daemon.send(SIGTERM)
        #expect(await daemon.exitCode() == nil, "\(daemon.log.lines)")
    }
}

// MARK: A gate, announced as the parking barrier is

enum GateState: Int, MachineSymbol { case closed, opening, open, closing }
enum GateEvent: Int, MachineSymbol { case request, lower, halt, armUp, armDown }
struct GateSettings: Hashable, Sendable {}

/// A gate whose arm a motor lifts on a request (a button or a command) and the up switch stops:
/// the parking barrier's shape in a few rows. ``Gate`` is announced as the barrier is (a cover
/// opened by `request`, nothing to close or stop it by command); ``FullGate`` also takes
/// `lower` and `halt` and announces them as the cover's Close and Stop.
protocol GateApplication: ControllerApplication
where State == GateState, Event == GateEvent, Context == Int, Settings == GateSettings {}

extension GateApplication {
    static var name: String { "gate" }
    static var table: TransitionTable<GateState, GateEvent, Int> { gateTable }
    static var settings: SettingsDeclaration<Self> { SettingsDeclaration(section: "gate", defaults: GateSettings(), keys: []) }
    static func makeContext(_: GateSettings) -> Int { 0 }
    static func apply(_: GateSettings, to _: inout Int) {}
    static var inputs: [InputDeclaration<Self>] {
        [
            .pulse("button", sends: .request, required: true, simulatedPulse: .milliseconds(100)),
            .level("up", on: .armUp, off: .armDown, required: true),
        ]
    }
    static var outputs: [OutputDeclaration<Self>] {
        [OutputDeclaration("motor", required: true, initial: false) { state, _ in state == .opening || state == .closing }]
    }
    static var counters: [CounterDeclaration<Self>] { [CounterDeclaration("requests") { $0 }] }
}

enum Gate: GateApplication {
    static var commands: [DirectCommand<Self>] { [DirectCommand(.request)] }
    static var homeAssistant: HomeAssistantHints<Self> {
        HomeAssistantHints(cover: .init(deviceClass: "gate", open: .request, openStates: [.open], opening: [.opening], closing: [.closing]))
    }

    static let board = """
        [board]
        name = "gate"
        backend = "sim"
        chip = "gate-sim"

        [inputs.button]
        line = "BUTTON"

        [inputs.up]
        line = "UP"

        [outputs.motor]
        line = "MOTOR"
        """
}

enum FullGate: GateApplication {
    static var commands: [DirectCommand<Self>] { [DirectCommand(.request), DirectCommand(.lower), DirectCommand(.halt)] }
    static var homeAssistant: HomeAssistantHints<Self> {
        HomeAssistantHints(cover: .init(
            deviceClass: "gate", open: .request, close: .lower, stop: .halt, openStates: [.open], opening: [.opening], closing: [.closing]))
    }
}

private let gateTable: TransitionTable<GateState, GateEvent, Int> = {
    var definition = MachineDefinition<GateState, GateEvent, Int>(initial: .closed)
    definition.state(.closed) { s in
        s.on(.request, to: .opening) { c, _ in c += 1 }
        s.on(.armUp, to: .open)
        s.on(.armDown)
        s.on(.lower)
        s.on(.halt)
    }
    definition.state(.opening) { s in
        s.on(.armUp, to: .open)
        s.on(.halt, to: .closed)
        s.on(.lower, to: .closing)
        s.on(.request)
        s.on(.armDown)
    }
    definition.state(.open) { s in
        s.on(.lower, to: .closing)
        s.on(.armDown, to: .closed)
        s.on(.request)
        s.on(.halt)
        s.on(.armUp)
    }
    definition.state(.closing) { s in
        s.on(.request, to: .opening) { c, _ in c += 1 }
        s.on(.armDown, to: .closed)
        s.on(.halt, to: .open)
        s.on(.lower)
        s.on(.armUp)
    }
    do {
        return try definition.compile()
    } catch {
        fatalError("the gate's table: \(error)")
    }
}()
