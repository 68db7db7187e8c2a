@testable import ControllerSite
import ControllerDaemon
import ControllerFSM
import ControllerHost
import ControllerStore
import Foundation
import Testing

/// Home Assistant's templates, rendered by Jinja (Home Assistant's template engine) against the
/// state messages a node with two parallel regions publishes: what Home Assistant shows is
/// read from every region, a fault superstate included, not from the first region's state alone.
@Suite("Discovery templates over every region")
struct DiscoveryTemplateTests {
    /// A gate (the first region) beside its power supply (the second), whose faults are a
    /// superstate.
    enum Gate: ControllerApplication {
        enum State: Int, MachineSymbol { case gate, leaf, closed, opening, open, closing, supply, mains, faulty, blown, brownout }
        enum Event: Int, MachineSymbol { case request, arrived, surge, sag, replace }
        struct Settings: Hashable, Sendable {}

        static let name = "gate"
        static let table: TransitionTable<State, Event, Int> = {
            var definition = MachineDefinition<State, Event, Int>(initial: .gate)
            definition.parallel(.gate) { _ in }
            definition.state(.leaf, in: .gate) { s in s.initial(.closed) }
            definition.state(.closed, in: .leaf) { s in s.on(.request, to: .opening) }
            definition.state(.opening, in: .leaf) { s in s.on(.arrived, to: .open) }
            definition.state(.open, in: .leaf) { s in s.on(.request, to: .closing) }
            definition.state(.closing, in: .leaf) { s in s.on(.arrived, to: .closed) }
            definition.state(.supply, in: .gate) { s in s.initial(.mains) }
            definition.state(.mains, in: .supply) { s in
                s.on(.surge, to: .blown)
                s.on(.sag, to: .brownout)
            }
            definition.state(.faulty, in: .supply) { s in
                s.initial(.blown)
                s.on(.replace, to: .mains)
            }
            definition.state(.blown, in: .faulty) { _ in }
            definition.state(.brownout, in: .faulty) { _ in }
            do { return try definition.compile() } catch { fatalError("\(error)") }
        }()
        static let settings = SettingsDeclaration<Self>(section: "gate", defaults: Settings(), keys: [])
        static func makeContext(_: Settings) -> Int { 0 }
        static func apply(_: Settings, to _: inout Int) {}
        static let inputs: [InputDeclaration<Self>] = [.pulse("button", sends: .request, required: true, simulatedPulse: .milliseconds(100))]
        static let outputs: [OutputDeclaration<Self>] = []
        static let counters: [CounterDeclaration<Self>] = []
        static let commands: [DirectCommand<Self>] = [DirectCommand(.request), DirectCommand(.surge), DirectCommand(.replace)]
        static var homeAssistant: HomeAssistantHints<Self> {
            HomeAssistantHints(faultStates: [.faulty], cover: .init(deviceClass: "gate", open: .request, openStates: [.open], opening: [.opening], closing: [.closing]))
        }
    }

    static let discovery = SiteDiscovery<Gate>(prefix: "homeassistant", topics: try! SiteTopics(prefix: "nodes", node: "gate1"))

    /// The state message after a step that left these innermost states active.
    static func stateMessage(_ active: [Gate.State]) -> String {
        let totals = DurableTotals<Gate>(counters: [:], gauges: [:], state: active[0], activeStates: active, lastEventUnixNanoseconds: nil)
        return String(decoding: SitePayload.state(totals, node: "gate1", app: Gate.self), as: UTF8.self)
    }

    /// What Home Assistant shows: each of `templates` rendered with the message as `value_json`.
    static func render(_ templates: [String], with message: String) throws -> [String] {
        let script = """
            import json, sys
            import jinja2
            request = json.load(sys.stdin)
            environment = jinja2.Environment()
            value_json = json.loads(request["message"])
            print(json.dumps([environment.from_string(t).render(value_json=value_json, value=request["message"]) for t in request["templates"]]))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: ["templates": templates, "message": message]))
        try input.fileHandleForWriting.close()
        let rendered = output.fileHandleForReading.readDataToEndOfFile()
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(
            process.terminationStatus == 0,
            "python3 with Jinja2 rendered nothing (scripts/test.sh installs Jinja2; or `pip install Jinja2`): \(problem)")
        return try #require(try JSONSerialization.jsonObject(with: rendered) as? [String])
    }

    static func entity(_ component: String) throws -> SiteDiscovery<Gate>.Config {
        try #require(discovery.entities.first { $0.component == component }).config
    }

    @Test("the state message lists every active state of every region, the superstates included")
    func stateMessageListsTheConfiguration() throws {
        let message = try #require(try JSONSerialization.jsonObject(with: Data(Self.stateMessage([.opening, .brownout]).utf8)) as? [String: Any])
        #expect(message["state"] as? String == "opening")
        #expect(message["active"] as? [String] == ["gate", "leaf", "opening", "supply", "faulty", "brownout"])
    }

    @Test("the problem sensor is on while the second region is in the fault superstate, whatever the first does")
    func problemFromSecondRegion() throws {
        let problem = try #require(try Self.entity("binary_sensor").value_template)
        #expect(try Self.render([problem], with: Self.stateMessage([.closed, .mains])) == ["OFF"])
        #expect(try Self.render([problem], with: Self.stateMessage([.closed, .blown])) == ["ON"])
        #expect(try Self.render([problem], with: Self.stateMessage([.open, .brownout])) == ["ON"])
    }

    @Test("the cover follows the first region while the second is in a fault; the state sensor's attributes name the whole configuration")
    func coverAndAttributes() throws {
        let cover = try #require(try Self.entity("cover").value_template)
        let attributes = try #require(try Self.entity("sensor").json_attributes_template)
        let state = try #require(try Self.entity("sensor").value_template)
        for (active, shown) in [([Gate.State.closed, .mains], "closed"), ([.opening, .blown], "opening"), ([.open, .brownout], "open"), ([.closing, .mains], "closing")] {
            let rendered = try Self.render([cover, state, attributes], with: Self.stateMessage(active))
            #expect(rendered[0] == shown, "\(active)")
            #expect(rendered[1] == active[0].name, "the enum sensor: the first region's state")
            let listed = try JSONSerialization.jsonObject(with: Data(rendered[2].utf8)) as? [String: [String]]
            #expect(listed?["active"]?.contains(active[1].name) == true, "\(rendered[2])")
        }
    }

    @Test("the health message's problems: a fault superstate around the second region's state is named, as the status names it")
    func healthFromSecondRegion() {
        let hub = StatusHub<Gate>(board: "sim", chip: "gate-sim", inbox: nil)
        hub.publishLoop(state: .opening, events: 1, lostEdges: 0, activeStates: StateBits([Gate.State.opening.rawValue, Gate.State.brownout.rawValue]))
        let snapshot = hub.snapshot()
        #expect(snapshot.alsoActive == ["brownout"])
        #expect(snapshot.superstates == ["leaf", "gate", "faulty", "supply"])
        #expect(snapshot.problems(faultStates: ["faulty"]) == ["in faulty"])
    }

    @Test("a retained state message of an earlier version (no active list) still reads, from its state alone")
    func earlierMessage() throws {
        let problem = try #require(try Self.entity("binary_sensor").value_template)
        let cover = try #require(try Self.entity("cover").value_template)
        let earlier = #"{"app":"gate","gauges":{},"node":"gate1","state":"open"}"#
        #expect(try Self.render([problem, cover], with: earlier) == ["OFF", "open"])
    }
}
