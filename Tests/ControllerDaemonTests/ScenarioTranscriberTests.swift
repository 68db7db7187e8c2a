import ControllerFSM
import Testing
import ControllerHost
import Turnstile
import TurnstileTestSupport
import ControllerDaemon

/// What the flight recorder writes for what the controller took besides edges: commands as the
/// control socket sent them, and what no replay can reproduce.
@Suite("Scenario<TurnstileApplication> transcriber: commands and the unreplayable")
struct ScenarioTranscriberTests {
    func transcribe(_ inputs: [(Double, ControllerInput<TurnstileApplication>)]) -> [String] {
        var transcriber = ScenarioTranscriber<TurnstileApplication>(board: .defaultSim, origin: .zero)
        var lines: [String] = []
        for (seconds, input) in inputs {
            lines += transcriber.take(InputRecord<TurnstileApplication>(time: .zero + .milliseconds(Int64(seconds * 1000)), input: input))
        }
        lines += transcriber.finish(at: .zero + .seconds(10))
        return lines.filter { !$0.contains(" set ") }
    }

    @Test("commands are written as commands: an emergency declared by command replays beside the line, not as it")
    func commandsStayCommands() {
        let lines = transcribe([(1, .command(.emergencyOn)), (2, .command(.emergencyOff)), (3, .command(.repair)), (4, .command(.fault))])
        #expect(lines.prefix(4) == ["1 event emergencyOn", "2 event emergencyOff", "3 event repair", "4 fault"], "\(lines)")
    }

    @Test("a failed output write is written as unreplayable, at its time")
    func failedWriteIsUnreplayable() {
        let lines = transcribe([(1.5, .outputWriteFailed(.lock)), (2, .outputWriteFailed(.alarm))])
        #expect(lines.contains("1.5 unreplayable the lock write failed (the controller raised fault)"), "\(lines)")
        #expect(lines.contains("2 unreplayable the alarm write failed"), "\(lines)")
    }
}

/// The turnstile's edges in its own words, as its recordings have always read: `coin`, `push
/// hold`, `repair`, `emergency on|off`, and its timings as `set` lines.
@Suite("Scenario transcriber: the turnstile's words")
struct TurnstileTranscriptionTests {
    @Test func edgesAreWrittenInTheTurnstilesWords() {
        let board = BoardFile.defaultSim
        var transcriber = ScenarioTranscriber<TurnstileApplication>(board: board, origin: .zero)
        func edge(_ seconds: Double, _ role: RoleName, _ active: Bool) -> [String] {
            // The edge is taken a debounce period after its line settled.
            let settled = Duration.milliseconds(Int64(seconds * 1000)) + board.inputs[role]!.debounce
            return transcriber.take(InputRecord(time: .zero + settled, input: .edge(role, active: active)))
        }
        var lines = transcriber.opening()
        lines += edge(1, .coin, true) + edge(1.05, .coin, false)
        lines += edge(2, .push, true)
        #expect(edge(2.5, .coin, true).isEmpty, "a push still held holds back what came after it")
        lines += edge(3.5, .push, false)
        lines += edge(5, .service, true) + edge(5.1, .service, false)
        lines += edge(6, .emergency, true) + edge(7, .emergency, false)
        var reloaded = board.settings
        reloaded.relockTimeout = .milliseconds(9_250)
        reloaded.failMode = board.settings.failMode == .safe ? .secure : .safe
        lines += transcriber.take(InputRecord(time: .zero + .seconds(8), input: .retime(reloaded)))
        lines += transcriber.finish(at: .zero + .seconds(10))
        let timings = board.settings
        #expect(lines == [
            "0 inputs as taken",
            "0 set relock_timeout \(timings.relockTimeout.exactSecondsText)",
            "0 set repair_period \(timings.repairPeriod.exactSecondsText)",
            "0 set jam_timeout \(timings.jamTimeout.exactSecondsText)",
            "0 set alarm_pulse \(timings.alarmPulse.exactSecondsText)",
            "1 coin",
            "2 push hold 1.5",
            "2.5 coin",
            "5 repair",
            "6 emergency on",
            "7 emergency off",
            "8 set relock_timeout 9.25",
            "# reloaded: fail_mode \(reloaded.failMode.rawValue) (a scenario sets durations only: the replay keeps the board's)",
            "10 end",
        ], "\(lines)")
    }
}

/// The gate (declared in the tests, no scenario words of its own): the recorder writes the
/// generic verbs, and what it writes is a scenario the gate's parser reads back.
@Suite("Scenario transcriber: any application, in the generic verbs")
struct GenericTranscriptionTests {
    @Test func edgesCommandsAndReloadsAreWrittenInTheGenericVerbs() throws {
        var transcriber = ScenarioTranscriber<Gate>(board: Gate.board, origin: .zero)
        func edge(_ seconds: Double, _ role: RoleName, _ active: Bool) -> [String] {
            let settled = Duration.milliseconds(Int64(seconds * 1000)) + Gate.board.inputs[role]!.debounce
            return transcriber.take(InputRecord(time: .zero + settled, input: .edge(role, active: active)))
        }
        func at(_ seconds: Double, _ input: ControllerInput<Gate>) -> [String] {
            transcriber.take(InputRecord(time: .zero + .milliseconds(Int64(seconds * 1000)), input: input))
        }
        var lines = transcriber.opening()
        lines += edge(1, "request", true) + edge(1.1, "request", false)
        lines += edge(2, "loop", true) + edge(3, "loop", false)
        lines += edge(4, "lever", true)
        #expect(edge(5, "request", true).isEmpty, "a held lever holds back what came after it")
        lines += edge(6.5, "lever", false)
        lines += edge(7, "alarm", true)
        lines += at(8, .command(.alarmOn)) + at(8.5, .command(.repair))
        lines += at(9, .outputWriteFailed("barrier")) + at(9.5, .outputWriteFailed("lamp"))
        var reloaded = Gate.board.settings
        reloaded.openFor = .seconds(7)
        reloaded.mode = .careful
        lines += at(10, .retime(reloaded))
        lines += edge(11, "lever", true)
        lines += transcriber.finish(at: .zero + .seconds(12))
        #expect(lines == [
            "0 inputs as taken",
            "0 set open_for 5",
            "0 set stuck_after 30",
            "1 pulse request",
            "2 set loop on",
            "3 set loop off",
            "4 hold lever 2.5",
            "5 pulse request",
            "7 set alarm on",
            "8 event alarmOn",
            "8.5 event repair",
            "9 unreplayable the barrier write failed (the controller raised fault)",
            "9.5 unreplayable the lamp write failed",
            "10 set open_for 7",
            "# reloaded: mode careful (a scenario sets durations only: the replay keeps the board's)",
            "11 hold lever 1",
            "12 end",
        ], "\(lines)")

        let text = ScenarioTranscriber<Gate>.header(board: Gate.board, boardPath: "gate.toml") + lines.joined(separator: "\n") + "\n"
        #expect(text.hasPrefix("# Recorded by gated run --record on board gate (gate.toml)."))
        let scenario = try Scenario<Gate>.parse(text, file: "recording", vocabulary: ScenarioVocabulary(for: Gate.board))
        let actions = scenario.steps.map(\.action)
        #expect(actions.contains(.pulse("request", width: nil)))
        #expect(actions.contains(.pulse("lever", width: .milliseconds(2_500))))
        #expect(actions.contains(.level("loop", on: true)) && actions.contains(.level("alarm", on: true)))
        #expect(actions.contains(.command(.alarmOn)) && actions.contains(.set("open_for", .seconds(7))))
    }
}

/// The gate with a simulated vehicle behind it, which drives the loop: the gate's own machine,
/// inputs and board, and a plant.
enum PlantedGate: ControllerApplication {
    typealias State = Gate.State
    typealias Event = Gate.Event
    typealias Context = Gate.Context
    typealias Settings = Gate.Settings
    typealias Plant = Vehicle

    /// Drives the loop: a vehicle drives on when the barrier opens.
    struct Vehicle: SimulatedPlant {
        typealias App = PlantedGate
        static var settingKeys: [SectionKey<Gate.Settings>] { [] }
        static var defaultSettings: Gate.Settings { Gate.Settings() }
        static var drivenInputs: [RoleName] { ["loop"] }
        /// `vehicle stalls`: it stays on the loop whatever the barrier does.
        enum Action: Hashable, Sendable { case stalls }
        static let scenarioWords: [ScenarioWord<PlantedGate>] = [
            ScenarioWord("vehicle", usages: ["vehicle stalls"], read: { (_: inout ScenarioWordReader) throws(ScenarioError) in .plant(.stalls) },
                         writes: { $0 == .plant(.stalls) ? "vehicle stalls" : nil }),
        ]
        var onLoop = false
        var stalled = false

        init(settings _: Gate.Settings, at _: MachineInstant) {}
        mutating func output(_ role: RoleName, _ level: Bool, at _: MachineInstant) { if role == "barrier" && !stalled { onLoop = !level } }
        mutating func perform(_: Action, at _: MachineInstant) { stalled = true }
        var nextChange: MachineInstant? { nil }
        func advance(to _: MachineInstant) {}
        func level(of role: RoleName) -> Bool { role == "loop" && onLoop }
    }

    static let name = "gate"
    static var table: TransitionTable<State, Event, Context> { Gate.table }
    static let settings = SettingsDeclaration<Self>(section: "gate", defaults: Settings(), keys: [
        .duration("open_for", \.openFor, summary: "how long the gate stays open"),
    ])
    static func makeContext(_ settings: Settings) -> Context { Gate.makeContext(settings) }
    static func apply(_ settings: Settings, to context: inout Context) { Gate.apply(settings, to: &context) }
    static let inputs: [InputDeclaration<Self>] = [
        .pulse("request", sends: .request, required: true, simulatedPulse: .milliseconds(100)),
        .level("loop", on: .vehicleIn, off: .vehicleOut, required: true) { $0.onLoop = $1 },
        .condition("alarm", on: .alarmOn, off: .alarmOff),
    ]
    static let outputs: [OutputDeclaration<Self>] = [
        OutputDeclaration("barrier", required: true, initial: true) { state, _ in state == .closed },
    ]
    static let counters: [CounterDeclaration<Self>] = []

    static let board: Board<PlantedGate> = {
        do {
            return try Board<PlantedGate>.parse("""
                [board]
                name = "gate"
                backend = "sim"
                chip = "gate-sim"

                [inputs.request]
                line = 0
                debounce = "10ms"

                [inputs.loop]
                line = 1
                debounce = "10ms"

                [inputs.alarm]
                line = 2
                debounce = "10ms"

                [outputs.barrier]
                line = 3
                """, file: "gate.toml")
        } catch {
            fatalError("the planted gate's board: \(error)")
        }
    }()
}

/// What the plant drives is the replay's plant's to drive: a recording leaves those lines out
/// (the replay would refuse them), and keeps every other input.
@Suite("Scenario transcriber: lines a plant drives")
struct PlantDrivenTranscriptionTests {
    @Test func linesThePlantDrivesAreLeftOut() throws {
        var transcriber = ScenarioTranscriber<PlantedGate>(board: PlantedGate.board, origin: .zero)
        func edge(_ seconds: Double, _ role: RoleName, _ active: Bool) -> [String] {
            let settled = Duration.milliseconds(Int64(seconds * 1000)) + PlantedGate.board.inputs[role]!.debounce
            return transcriber.take(InputRecord(time: .zero + settled, input: .edge(role, active: active)))
        }
        var lines = transcriber.opening()
        lines += edge(1, "request", true) + edge(1.1, "request", false)
        lines += edge(1.5, "loop", true) + edge(3, "loop", false)
        lines += edge(4, "alarm", true) + edge(5, "alarm", false)
        lines += transcriber.finish(at: .zero + .seconds(6))
        #expect(lines == ["0 inputs as taken", "0 set open_for 5", "1 pulse request", "4 set alarm on", "5 set alarm off", "6 end"], "\(lines)")
    }

    @Test("a scenario's action on the plant is in the recording, in the plant's words, and reads back")
    func plantActionsAreWritten() throws {
        var transcriber = ScenarioTranscriber<PlantedGate>(board: PlantedGate.board, origin: .zero)
        var lines = transcriber.take(InputRecord(time: .zero + .milliseconds(1_500), input: .plant(.stalls)))
        lines += transcriber.finish(at: .zero + .seconds(2))
        #expect(lines == ["1.5 vehicle stalls", "2 end"], "\(lines)")
        let scenario = try Scenario<PlantedGate>.parse(lines.joined(separator: "\n") + "\n", file: "recording",
                                                       vocabulary: ScenarioVocabulary(for: PlantedGate.board))
        #expect(scenario.steps.map(\.action).first == .plant(.stalls))
    }
}
