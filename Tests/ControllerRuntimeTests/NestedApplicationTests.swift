import ControllerTestSupport
import ControllerDaemon
import ControllerFSM
import ControllerHost
@testable import ControllerHTTP
import Foundation
import ControllerSimulation
import Testing

/// An application whose machine has superstates, run by the host and the simulator as any other:
/// `expect state NAME` holds when NAME is active at any level, and a failed
/// expectation names the whole configuration.
@Suite("A nested application in the simulator")
struct NestedApplicationTests {
    enum LampState: Int, MachineSymbol { case on, dim, bright, off }
    enum LampEvent: Int, MachineSymbol { case toggle, brighter, power }
    struct LampContext: Sendable { var switches = 0 }
    struct LampSettings: Hashable, Sendable { var unused = Duration.seconds(1) }

    enum Lamp: ControllerApplication {
        typealias State = LampState
        typealias Event = LampEvent
        typealias Context = LampContext
        typealias Settings = LampSettings
        static var name: String { "lamp" }
        static let table: TransitionTable<LampState, LampEvent, LampContext> = {
            var definition = MachineDefinition<LampState, LampEvent, LampContext>(initial: .off)
            definition.state(.on) { s in
                s.initial(.dim)
                s.on(.toggle, to: .off) { c, _ in c.switches += 1 }
            }
            definition.state(.dim, in: .on) { s in s.on(.brighter, to: .bright) }
            definition.state(.bright, in: .on) { s in s.on(.brighter, to: .dim) }
            definition.state(.off) { s in s.on(.toggle, to: .on) { c, _ in c.switches += 1 } }
            do { return try definition.compile() } catch { fatalError("\(error)") }
        }()
        static var settings: SettingsDeclaration<Self> {
            SettingsDeclaration(section: "lamp", defaults: LampSettings(), keys: [.duration("unused", \.unused)])
        }
        static func makeContext(_ settings: LampSettings) -> LampContext { LampContext() }
        static func apply(_ settings: LampSettings, to context: inout LampContext) {}
        static var inputs: [InputDeclaration<Self>] {
            [
                .pulse("switch", sends: .toggle, required: true, simulatedPulse: .milliseconds(100)),
                .pulse("dimmer", sends: .brighter, required: true, simulatedPulse: .milliseconds(100)),
            ]
        }
        static var outputs: [OutputDeclaration<Self>] {
            [OutputDeclaration("light", required: true, initial: false) { state, _ in state != .off }]
        }
        static var counters: [CounterDeclaration<Self>] { [CounterDeclaration("switches") { $0.switches }] }
        static var commands: [DirectCommand<Self>] { [] }

        static func board() throws -> Board<Self> {
            try Board<Self>.parse("""
                [board]
                name = "lamp"
                backend = "sim"
                chip = "lamp-sim"

                [inputs.switch]
                line = "SWITCH"

                [inputs.dimmer]
                line = "DIMMER"

                [outputs.light]
                line = "LIGHT"
                """, file: "lamp.toml")
        }
    }

    func run(_ script: String) throws -> [String] {
        try expectationFailures(of: script, on: Lamp.board(), file: "lamp.txt")
    }

    @Test("expect state holds for the innermost state and for every superstate around it")
    func expectAtAnyLevel() throws {
        #expect(try run("""
            1 pulse switch
            2 expect state dim
            2 expect state on
            3 pulse dimmer
            4 expect state bright
            4 expect state on
            4 expect output light 1
            5 pulse switch
            6 expect state off
            6 expect counter switches 2
            7 end
            """) == [])
    }

    @Test("a failed expectation names the whole configuration")
    func failureNamesConfiguration() throws {
        #expect(try run("""
            1 pulse switch
            2 expect state off
            3 end
            """) == ["expected state off, but the lamp is dim in on"])
    }

    @Test("/status and ctl status name the superstates around the state; a flat machine's snapshot has no such key")
    func statusShowsConfiguration() throws {
        let hub = StatusHub<Lamp>(board: "lamp", chip: "simchip0", inbox: nil)
        hub.publishLoop(state: .bright, events: 3, lostEdges: 0)
        let snapshot = hub.snapshot()
        #expect(snapshot.state == "bright" && snapshot.superstates == ["on"])
        let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        #expect(json.contains(#""superstates":["on"]"#), "\(json)")
        #expect(try JSONDecoder().decode(DaemonSnapshot.self, from: Data(json.utf8)) == snapshot)
        hub.publishLoop(state: .off, events: 4, lostEdges: 0)
        let top = String(decoding: try JSONEncoder().encode(hub.snapshot()), as: UTF8.self)
        #expect(!top.contains("superstates"), "a state at the top has none: \(top)")
    }

    @Test("the status page shows the state, and under it the superstates around it; its script keeps doing so")
    func statusPage() throws {
        let hub = StatusHub<Lamp>(board: "lamp", chip: "simchip0", inbox: nil)
        hub.publishLoop(state: .bright, events: 3, lostEdges: 0)
        let page = StatusPage(Lamp.self, diagram: DiagramLayout(StateDiagram(Lamp.table))).html(hub.snapshot())
        // The state's name alone on its big line (what a reader and OCR take as the state), the
        // configuration on a line of its own.
        #expect(page.contains(#"<div id="state" class="state" data-state="bright">bright</div>"#), "\(page.prefix(2_000))")
        #expect(page.contains(#"<div id="around" class="around">in on</div>"#), "\(page.prefix(2_000))")
        #expect(page.contains(".around{"))
        #expect(page.contains(#"$("around").textContent = (s.superstates || [])"#))
        #expect(StatusPage.around(["inService", "operating"], alsoActive: ["broken"]) == "in inService in operating · also broken")
        let flat = StatusPage(daemonName: "turnstiled", gauges: [], diagram: DiagramLayout(StateDiagram(Lamp.table)))
        #expect(!flat.script.contains("superstates") && !flat.script.contains("around"), "a flat machine's page is as it was")
    }

    @Test("the page's diagram draws the innermost states as boxes, in a frame for their superstate")
    func diagramNesting() throws {
        let diagram = StateDiagram(Lamp.table)
        #expect(diagram.states == ["dim", "bright", "off"])
        #expect(diagram.superstates == [StateDiagram.Superstate(name: "on", members: [0, 1], isParallel: false)])
        // The superstate's row is drawn from each state inside it; a row into it points at
        // the state it starts in.
        #expect(diagram.transitions.contains { $0.from == "dim" && $0.event == "toggle" && $0.to == "off" })
        #expect(diagram.transitions.contains { $0.from == "bright" && $0.event == "toggle" && $0.to == "off" })
        #expect(diagram.transitions.contains { $0.from == "off" && $0.event == "toggle" && $0.to == "dim" })
        let layout = DiagramLayout(diagram)
        let svg = layout.svg(current: "bright")
        #expect(svg.contains(#"<g class="frame" data-superstate="on">"#))
        #expect(!svg.contains(#"data-state="on""#), "a superstate is a frame, not a box")
        let frame = try #require(layout.frames.first)
        for member in [0, 1] {
            let box = layout.nodes[member].box
            #expect(frame.box.minX < box.minX && frame.box.maxX > box.maxX && frame.box.minY < box.minY && frame.box.maxY > box.maxY)
        }
        let outside = layout.nodes[2].box
        #expect(outside.maxX < frame.box.minX || outside.minX > frame.box.maxX || outside.maxY < frame.box.minY || outside.minY > frame.box.maxY,
                "the state outside the superstate is outside its frame")
        #expect(StatusPage(Lamp.self, diagram: layout).html(StatusHub<Lamp>(board: "lamp", chip: "simchip0", inbox: nil).snapshot()).contains(".frame rect{"))
    }
}

@Suite("A nested application's metrics and discovery name its innermost states")
struct NestedVocabularyTests {
    @Test("the state gauge has a series per innermost state, not per superstate")
    func metricsStates() {
        let text = String(decoding: ControllerMetrics<NestedApplicationTests.Lamp>().render(
            StatusHub<NestedApplicationTests.Lamp>(board: "lamp", chip: "simchip0", inbox: nil).snapshot()), as: UTF8.self)
        #expect(text.contains(#"lampd_state{state="dim"}"#) && text.contains(#"lampd_state{state="off"}"#))
        #expect(!text.contains(#"lampd_state{state="on"}"#), "on is a superstate: never the reported state")
    }
}
