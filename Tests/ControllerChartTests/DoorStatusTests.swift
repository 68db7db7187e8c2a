import ControllerChart
import ControllerDaemon
import ControllerHost
import ControllerSimulation
import ControllerTestSupport
import Foundation
import Testing

/// What an operator reads of the door chart — `/status` (and so the status page and `ctl
/// status`), the health problems the site publishes — is what they would read of the same door
/// written in Swift, at every moment of a scenario.
@Suite("The door chart's status, against the door in Swift")
struct DoorStatusTests {
    /// The status after `script` up to `end`, as the event loop and the store publish it.
    static func status<App: ControllerApplication>(_: App.Type, _ script: String, until end: Double) throws -> DaemonSnapshot {
        let board = try Board<App>.parse(ChartDoor.builtInBoard.text, file: ChartDoor.builtInBoard.file)
        let simulation = try Simulation<App>(board: board, reporter: ExpectationFailures<App>())
        // The script's steps up to `end`, then its end.
        let steps = script.split(separator: "\n").filter { line in Double(line.split(separator: " ").first ?? "") ?? 0 <= end }
        let scenario = try Scenario<App>.parse(
            steps.joined(separator: "\n") + "\n\(end) end\n", file: "status.scenario", vocabulary: Simulation<App>.vocabulary(for: board))
        _ = try simulation.run(scenario)
        let controller = simulation.controller
        let hub = StatusHub<App>(board: "door-sim", chip: "door-sim", inbox: nil)
        hub.publishLoop(
            state: controller.state, events: 0, lostEdges: controller.lostEdges, outputOverrides: controller.outputOverrides,
            overrideCodes: controller.overrideCodes, conditionsHeldByLine: controller.conditionsHeldByLine,
            outputLevels: controller.outputLevels, wiredOutputs: controller.wiredOutputs, activeStates: controller.activeStateBits,
            inputsOn: controller.inputsOn, unsettledSteps: controller.unsettledSteps)
        let counters = Dictionary(uniqueKeysWithValues: App.counterNames.enumerated().map { ($1, controller.counterValues[$0]) })
        hub.publishDurable(counters: counters, gauges: [:])
        return hub.snapshot()
    }

    static let script = """
        0.1     pulse button
        0.5     set obstacle on
        1       set obstacle off
        9       pulse button
        10.5    set obstacle on
        11      set obstacle off
        20      set fire on
        24      set fire off
        30      event open
        40      event fire
        41      event fireOver
        """

    @Test("state, superstates, outputs and their meanings, inputs, counters and problems match at every moment")
    func sameStatus() throws {
        try DoorChartTests.load()
        // The fire superstate as a fault: the problems name it while the door is in it.
        let faults: Set<String> = ["fireOpen"]
        var seen: Set<String> = []
        for end in [0.05, 0.3, 0.7, 2.5, 8, 9.5, 10.7, 12, 20.5, 23, 24.5, 30.5, 33, 40.5, 41.5, 50] {
            var chart = try Self.status(ChartDoor.self, Self.script, until: end)
            var swift = try Self.status(SwiftDoor.self, Self.script, until: end)
            // Uptime is the process's clock, not the door's.
            (chart.uptimeSeconds, swift.uptimeSeconds) = (0, 0)
            #expect(chart == swift, "at \(end) s:\n  chart \(chart)\n  swift \(swift)")
            #expect(chart.problems(faultStates: faults) == swift.problems(faultStates: faults), "at \(end) s")
            seen.insert(chart.state)
            if chart.state == "fireOpening" { #expect(chart.problems(faultStates: faults) == ["in fireOpen"] && chart.superstates == ["fireOpen"]) }
            if end == 50 { #expect(chart.counters["openings"] == 3 && chart.outputs.map(\.name) == ["motor_open", "motor_close"], "\(chart)") }
        }
        // The moments cover every innermost state of the door.
        #expect(seen == ["closed", "opening", "open", "closing", "fireOpening", "fireHeld"], "\(seen)")
    }
}
