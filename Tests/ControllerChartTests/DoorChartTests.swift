import ControllerChart
import ControllerFSM
import ControllerHost
import ControllerSCXML
import ControllerSimulation
import ControllerTestSupport
import Foundation
import Testing

/// The door chart's own space: loaded once for the test process.
enum DoorChart: ChartSpace { static let slot = ChartSlot<DoorChart>() }

typealias ChartDoor = ChartController<DoorChart>

/// Examples/Charts/door as a chart controller in the simulator: its demo holds, and it writes the
/// same outputs, at the same instants, and counts the same as the door written in Swift.
@Suite("The door chart as a controller")
struct DoorChartTests {
    static let bindingFile = repositoryPath("Examples/Charts/door/door.toml")
    static let demoFile = repositoryPath("Examples/Charts/door/demo.scenario")

    /// The chart, loaded into its space once (a space holds one chart for the process).
    static let loaded: Result<LoadedChart<DoorChart>, ChartLoadError> = Result { () throws(ChartLoadError) in
        try ChartLoader.load(bindingFile: bindingFile, into: DoorChart.self)
    }

    @discardableResult
    static func load() throws -> LoadedChart<DoorChart> { try loaded.get() }

    @Test("its demo scenario holds in the simulator: every state, the timers, the beam, the fire alarm, the count")
    func demoHolds() throws {
        try Self.load()
        let demo = try String(contentsOfFile: Self.demoFile, encoding: .utf8)
        #expect(try expectationFailures(of: demo, on: Board<ChartDoor>.builtIn, file: "demo.scenario") == [])
    }

    @Test("it writes the same outputs at the same instants, and counts the same, as the door in Swift")
    func sameAsSwift() throws {
        try Self.load()
        let script = try String(contentsOfFile: Self.demoFile, encoding: .utf8) + """
            31      event open               # a command, as ctl sends it
            31.5    expect state opening
            33      pulse button             # open again while open: the hold restarts
            37      expect state open
            38.5    expect state closing
            39      pulse button             # reopened while closing
            39.5    expect state opening
            45      event fire
            45.5    expect state fireOpening
            46      event fireOver           # withdrawn while opening for the fire: back to service, closed
            46.5    expect state closed
            46.5    expect state service
            47      expect counter openings 4
            47      expect counter fireAlarms 2
            60      end
            """
        // One board for both: the binding's (its [door] section sets both doors' timers).
        let board = ChartDoor.builtInBoard
        #expect(board.file.hasSuffix("Examples/Charts/door/boards/sim.toml"))
        let chart = try simulationEvents(of: script, on: Board<ChartDoor>.parse(board.text, file: board.file), file: "door.scenario")
        let swift = try simulationEvents(of: script, on: Board<SwiftDoor>.parse(board.text, file: board.file), file: "door.scenario")
        #expect(chart == swift)
        #expect(chart.contains("2.012 motor_open=0") && chart.contains("39.012 motor_close=0"), "\(chart)")
        #expect(try expectationFailures(of: script, on: Board<ChartDoor>.builtIn, file: "door.scenario") == [])
        #expect(try expectationFailures(of: script, on: Board<SwiftDoor>.builtIn, file: "door.scenario") == [])
    }

    @Test("a timer's delay is a setting of the board's section, the chart's <send delay> its default")
    func timerSettingFromTheBoard() throws {
        let chart = try Self.load()
        #expect(chart.settings.section == "door")
        #expect(chart.settings.keys.map(\.name) == ["travel", "hold"])
        #expect(chart.settings.defaults == ChartSettings(timers: [.seconds(2), .seconds(5)]))
        let board = try Board<ChartDoor>.parse(BuiltInBoard.wiringEveryRole(of: ChartDoor.self).text + "\n[door]\ntravel = \"1s\"\n", file: "fast.toml")
        #expect(try expectationFailures(of: """
            0       pulse button
            0.5     expect state opening
            1.5     expect state open
            2       end
            """, on: board, file: "fast.scenario") == [])
    }

    @Test("the binding's state count and Home Assistant's cover and device classes name the chart's states and events")
    func hintsFromTheBinding() throws {
        try Self.load()
        #expect(ChartDoor.stateCounts.map { "\($0.kind) \($0.state.name)" } == ["fireAlarms fireOpen"])
        let cover = try #require(ChartDoor.homeAssistant.cover)
        #expect(cover.deviceClass == "door" && cover.open.name == "open")
        #expect(cover.openStates.map(\.name) == ["open", "fireHeld"] && cover.opening.map(\.name) == ["opening", "fireOpening"])
        #expect(ChartDoor.homeAssistant.inputDeviceClasses == ["obstacle": "occupancy", "fire": "safety"])
        #expect(ChartDoor.demoScenario(for: try Board<ChartDoor>.parse(ChartDoor.builtInBoard.text, file: "sim.toml")).contains("expect counter fireAlarms 1"))
    }

    @Test("the names travel with the machine's types: a detached task, with no task-local binding, reads them")
    func namesWithoutTaskLocal() async throws {
        try Self.load()
        let names = await Task.detached { ChartDoor.State.allCases.map(\.name) }.value
        #expect(names.starts(with: ["service", "closed", "opening", "open", "closing", "fireOpen", "fireOpening", "fireHeld"]))
        #expect(ChartDoor.Event(rawValue: DoorChart.symbols.eventNumber(named: "open")!)?.name == "open")
        #expect(DocumentState.allCases.isEmpty, "the task-bound space is untouched")
    }
}
