import ControllerTestSupport
import TurnstileTestSupport
import ControllerDaemon
import ControllerFSM
import ControllerFSMSim
import ControllerHost
@testable import ControllerHTTP
@testable import ControllerCommandLine
@testable import ControllerRuntime
import ControllerSimulation
import Foundation
import Testing
import Turnstile

/// Every output's level and meaning on `/status`, `ctl status` and the page, and when the host
/// holds one at a level the machine did not ask for.
@Suite("Outputs on the status")
struct OutputStatusTests {
    static func snapshot(of simulation: TurnstileSimulation) -> DaemonSnapshot {
        let controller = simulation.controller
        let hub = StatusHub<TurnstileApplication>(board: "sim", chip: "turnstile-sim", inbox: nil)
        hub.publishLoop(
            state: controller.state, events: controller.statistics.dispatched, lostEdges: controller.lostEdges,
            outputOverrides: controller.outputOverrides, overrideCodes: controller.overrideCodes,
            conditionsHeldByLine: controller.conditionsHeldByLine,
            outputLevels: controller.outputLevels, wiredOutputs: controller.wiredOutputs, inputsOn: controller.inputsOn)
        return hub.snapshot()
    }

    @Test("each wired output, in declaration order, with its level and what it means")
    func levelsAndMeanings() throws {
        let simulation = try TurnstileSimulation(board: .defaultSim, reporter: SimulationRecorder())
        try simulation.start()
        try simulation.advance(through: .zero + .milliseconds(100))
        var snapshot = Self.snapshot(of: simulation)
        let lock = try #require(snapshot.outputs.first)
        #expect(lock == OutputStatus(name: "lock", level: 1, meaning: "arm held"))
        #expect(snapshot.outputs.map(\.name) == TurnstileApplication.outputs.map(\.role.rawValue).filter { name in
            snapshot.outputs.contains { $0.name == name }
        })
        try simulation.perform(.coin, at: .zero + .seconds(1))
        try simulation.advance(through: .zero + .seconds(1) + .milliseconds(200))
        snapshot = Self.snapshot(of: simulation)
        #expect(snapshot.outputs.first == OutputStatus(name: "lock", level: 0, meaning: "arm released"))
        let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        #expect(json.contains(#""outputs":[{"#) && json.contains(#""name":"lock""#))
        #expect(try JSONDecoder().decode(DaemonSnapshot.self, from: Data(json.utf8)).outputs == snapshot.outputs)
        let described = Ctl<TurnstileApplication>.describe(snapshot, style: Style(enabled: false))
        #expect(described.contains("outputs  lock = 0 (arm released), "), "\(described)")
    }

    @Test("an output the host holds against the machine says why")
    func heldOutput() throws {
        let hub = StatusHub<TurnstileApplication>(board: "sim", chip: "turnstile-sim", inbox: nil)
        // The lock (output 0) wired and at 0, held there by a failed write.
        hub.publishLoop(
            state: .unlocked, events: 1, lostEdges: 0, outputOverrides: 1,
            overrideCodes: UInt64(OutputOverride.writeFailed.rawValue), outputLevels: 0, wiredOutputs: 0b1)
        let snapshot = hub.snapshot()
        #expect(snapshot.outputs == [OutputStatus(name: "lock", level: 0, meaning: "arm released", held: OutputOverride.writeFailed.description)])
        #expect(snapshot.outputs[0].description == "lock = 0 (arm released; \(OutputOverride.writeFailed.description))")
        let described = Ctl<TurnstileApplication>.describe(snapshot, style: Style(enabled: false))
        #expect(described.contains("outputs  lock = 0 (arm released; \(OutputOverride.writeFailed.description))"), "\(described)")
    }

    @Test("the page lists the outputs and its script keeps them current")
    func page() throws {
        let simulation = try TurnstileSimulation(board: .defaultSim, reporter: SimulationRecorder())
        try simulation.start()
        let page = StatusPage(TurnstileApplication.self, diagram: DiagramLayout(StateDiagram(TurnstileApplication.table))).html(Self.snapshot(of: simulation))
        #expect(page.contains(#"<h2>outputs</h2><table id="outputs"></table>"#))
        #expect(page.contains(#"rows($("outputs"), (s.outputs || [])"#))
    }
}

@Suite("The other regions' states on the status")
struct AlsoActiveStatusTests {
    @Test("the hub names every other active innermost state; /status, ctl and the page show them")
    func alsoActive() throws {
        let hub = StatusHub<TurnstileApplication>(board: "sim", chip: "turnstile-sim", inbox: nil)
        let bits = StateBits([TurnstileState.locked.rawValue, TurnstileState.broken.rawValue])
        hub.publishLoop(state: .locked, events: 1, lostEdges: 0, activeStates: bits)
        let snapshot = hub.snapshot()
        #expect(snapshot.alsoActive == ["broken"])
        let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        #expect(json.contains(#""alsoActive":["broken"]"#))
        #expect(try JSONDecoder().decode(DaemonSnapshot.self, from: Data(json.utf8)).alsoActive == ["broken"])
        #expect(Ctl<TurnstileApplication>.describe(snapshot, style: Style(enabled: false)).contains("\nalso     broken\n"))
        hub.publishLoop(state: .locked, events: 1, lostEdges: 0, activeStates: StateBits([TurnstileState.locked.rawValue]))
        let flat = String(decoding: try JSONEncoder().encode(hub.snapshot()), as: UTF8.self)
        #expect(!flat.contains("alsoActive"), "one active state: the field is absent, /status as it was")
        let page = StatusPage(daemonName: "d", gauges: [], diagram: DiagramLayout(StateDiagram(TurnstileApplication.table)), nested: true)
        #expect(page.script.contains("also "))
    }
}

/// Every level and condition input on `/status` and `ctl status`: the fire alarm on while its
/// line or a command holds it.
@Suite("Inputs on the status")
struct InputStatusTests {
    static func snapshot(of simulation: TurnstileSimulation) -> DaemonSnapshot { OutputStatusTests.snapshot(of: simulation) }

    @Test("the fire alarm is off, then on by its line, then on by a command alone, then off; pulses are never listed")
    func fireAlarm() throws {
        let simulation = try TurnstileSimulation(board: .defaultSim, reporter: SimulationRecorder())
        try simulation.start()
        try simulation.advance(through: .zero + .milliseconds(100))
        #expect(Self.snapshot(of: simulation).inputs == ["emergency": false])
        try simulation.perform(.level("emergency", on: true), at: .zero + .seconds(1))
        try simulation.advance(through: .zero + .seconds(2))
        var snapshot = Self.snapshot(of: simulation)
        #expect(snapshot.inputs == ["emergency": true])
        #expect(snapshot.state == "emergency")
        // A command declares the alarm too; the line going quiet does not end it.
        try simulation.perform(.command(.emergencyOn), at: .zero + .seconds(3))
        try simulation.perform(.level("emergency", on: false), at: .zero + .seconds(4))
        try simulation.advance(through: .zero + .seconds(5))
        snapshot = Self.snapshot(of: simulation)
        #expect(snapshot.inputs == ["emergency": true])
        try simulation.perform(.command(.emergencyOff), at: .zero + .seconds(6))
        try simulation.advance(through: .zero + .seconds(7))
        snapshot = Self.snapshot(of: simulation)
        #expect(snapshot.inputs == ["emergency": false])
        let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        #expect(json.contains(#""inputs":{"emergency":false}"#), "\(json)")
        #expect(try JSONDecoder().decode(DaemonSnapshot.self, from: Data(json.utf8)).inputs == snapshot.inputs)
        let described = Ctl<TurnstileApplication>.describe(snapshot, style: Style(enabled: false))
        #expect(described.contains("inputs   emergency off"), "\(described)")
    }
}

/// `ctl events`: a row that stays marks itself internal, a superstate's row names its superstate.
@Suite struct CtlEventLineTests {
    @Test func internalAndSuperstateRowsAreMarked() {
        let style = Style(enabled: false)
        let moving = Ctl<TurnstileApplication>.describe(TransitionSummary(time: 1.5, from: "locked", event: "coin", to: "unlocked"), style: style)
        let staying = Ctl<TurnstileApplication>.describe(
            TransitionSummary(time: 2, from: "unlocked", event: "coin", to: "unlocked", isInternal: true), style: style)
        let inherited = Ctl<TurnstileApplication>.describe(
            TransitionSummary(time: 3, from: "closed", event: "fire", to: "fireOpening", row: "service"), style: style)
        #expect(moving == "     1.500 s  locked --coin--> unlocked")
        #expect(staying == "     2.000 s  unlocked --coin--> unlocked (internal)")
        #expect(inherited == "     3.000 s  closed --fire--> fireOpening (row of service)")
    }
}
