import ControllerFSM
import ControllerHost
import Foundation
import ParkingBarrier
import Testing

/// The barrier's declaration as the runtime reads it: its boards load through the generic
/// loader, its roles, counters, commands and outputs say what docs/parking-barrier.md says, and its demo
/// holds on the machine with the simulated arm.
@Suite("Parking barrier: the declaration")
struct ParkingBarrierDeclarationTests {
    /// `Examples/ParkingBarrier/boards`, found from this file.
    static let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("boards")

    static func boardText(_ name: String) throws -> String {
        try String(contentsOf: boards.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("every board file in boards/ loads", arguments: ["sim.toml", "raspberry-pi-4.toml", "raspberry-pi-5.toml", "hil-gpio-sim.toml"])
    func boardsLoad(file: String) throws {
        _ = try Board<ParkingBarrier>.parse(try Self.boardText(file), file: file)
    }

    @Test("the built-in board is boards/sim.toml, and loads")
    func builtInBoard() throws {
        #expect(ParkingBarrier.simBoardText == (try Self.boardText("sim.toml")))
        _ = try Board<ParkingBarrier>.parse(ParkingBarrier.simBoardText, file: ParkingBarrier.simBoardFile)
    }

    @Test("boards/ holds the four boards and nothing else: a new board gets a load test")
    func boardList() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.boards.path).sorted()
        #expect(files == ["hil-gpio-sim.toml", "raspberry-pi-4.toml", "raspberry-pi-5.toml", "sim.toml"])
    }

    @Test("a board without a required role is refused, naming it", arguments: ["request", "loop", "photocell", "up_limit", "down_limit"])
    func requiredInputs(role: String) throws {
        // The section and its four keys taken out.
        let lines = try Self.boardText("sim.toml").components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "[inputs.\(role)]"))
        let kept = lines[..<start] + lines[(start + 5)...]
        #expect {
            _ = try Board<ParkingBarrier>.parse(kept.joined(separator: "\n"), file: "sim.toml")
        } throws: { error in
            "\(error)".contains(role)
        }
    }

    @Test("a misspelt [barrier] key is refused, naming the section and the key")
    func misspeltSetting() throws {
        let text = try Self.boardText("sim.toml").replacingOccurrences(of: "hold_open = ", with: "hold_opne = ")
        #expect {
            _ = try Board<ParkingBarrier>.parse(text, file: "sim.toml")
        } throws: { error in
            "\(error)".contains("hold_opne")
        }
    }

    @Test("the roles are docs/parking-barrier.md's: five required inputs, the service key and the fire alarm optional, the motors required")
    func roles() {
        let inputs = ParkingBarrier.inputs.map { "\($0.role)\($0.isRequired ? "!" : "")" }
        #expect(inputs == ["request!", "loop!", "photocell!", "up_limit!", "down_limit!", "service", "emergency"])
        guard case .condition(.emergencyOn, .emergencyOff) = ParkingBarrier.inputs[6].binding else {
            Issue.record("emergency must be a condition the line and commands both assert")
            return
        }
        let outputs = ParkingBarrier.outputs.map { "\($0.role)\($0.isRequired ? "!" : "")" }
        #expect(outputs == ["motor_down!", "motor_up!", "green", "red", "alarm"])
    }

    @Test("every event but the timer's comes from a line or a command")
    func everyEventHasASource() {
        var carried = Set(ParkingBarrier.commands.map(\.event))
        for input in ParkingBarrier.inputs {
            switch input.binding {
            case .pulse(let event): carried.insert(event)
            case .level(let on, let off, _), .condition(let on, let off): carried.formUnion([on, off])
            }
        }
        #expect(carried == Set(BarrierEvent.allCases).subtracting([.timeout]))
        #expect(ParkingBarrier.commands.map(\.event) == [.request, .fault, .repair, .emergencyOn, .emergencyOff])
    }

    @Test("Home Assistant sees the barrier as a gate: opened by a command it takes, its states as the cover's")
    func homeAssistantCover() throws {
        let cover = try #require(ParkingBarrier.homeAssistant.cover)
        #expect(cover.deviceClass == "gate" && cover.open == .request && cover.close == nil)
        #expect(ParkingBarrier.commands.contains { $0.event == cover.open }, "a cover whose command the node refuses is not announced")
        #expect(cover.openStates == [.open] && cover.opening == [.opening] && cover.closing == [.closing])
        let named = Set(cover.openStates + cover.opening + cover.closing)
        #expect(named.isSubset(of: Set(BarrierMachine.table.atomicStates)), "a cover state is one the barrier rests in")
        #expect(ParkingBarrier.homeAssistant.faultStates == [.fault])
        // The vehicle loop, the photocell and the fire alarm as binary sensors of their kind:
        // each a level or condition input the barrier has.
        let classes = ParkingBarrier.homeAssistant.inputDeviceClasses
        #expect(classes == ["loop": "occupancy", "photocell": "occupancy", "emergency": "safety"])
        for role in classes.keys {
            #expect(ParkingBarrier.inputs.contains { $0.role == role && $0.binding.isLevel }, "\(role)")
        }
    }

    @Test("each counter is declared once, under its own name, reading its own field")
    func counters() {
        var values = BarrierCounters()
        (values.requests, values.refusedRequests, values.passages, values.expiredOpenings) = (1, 2, 3, 4)
        (values.reversals, values.faults, values.repairs) = (5, 6, 7)
        var context = ParkingBarrier.makeContext(BarrierSettings())
        context.counters = values
        let fields = Dictionary(uniqueKeysWithValues: Mirror(reflecting: values).children.map { ($0.label!, $0.value as! Int) })
        let declared = ParkingBarrier.counters.map { ($0.name, $0.value(context)) }
        #expect(Dictionary(uniqueKeysWithValues: declared) == fields)
        #expect(ParkingBarrier.counterNames.last == "ignored" && Set(ParkingBarrier.counterNames).count == 8)
    }

    @Test("the motors start and stop off; green exactly in open, red exactly when green is off, alarm exactly in fault")
    func outputs() {
        for output in ParkingBarrier.outputs.prefix(2) {
            #expect(!output.initialLevel && output.stopLevel?(BarrierSettings()) == false, "\(output.role)")
        }
        var rising = ParkingBarrier.makeContext(BarrierSettings())
        rising.rising = true
        for state in BarrierMachine.table.atomicStates {
            for context in [ParkingBarrier.makeContext(BarrierSettings()), rising] {
                let level = { (role: RoleName) in
                    ParkingBarrier.outputLevel(ParkingBarrier.outputIndex(named: role)!, state: state, context: context)
                }
                #expect(level("green") == (state == .open) && level("red") == !level("green"), "\(state.name)")
                #expect(level("alarm") == (state == .fault), "\(state.name)")
            }
        }
    }

    @Test("a [barrier] setting reaches the machine: a shorter hold_open ends the opening sooner")
    func settingsReachTheMachine() {
        var settings = ParkingBarrier.settings.defaults
        settings = ParkingBarrier.settings.key(named: "hold_open")!.setting(.seconds(7), in: settings)
        var d = BarrierDriver(settings: settings)
        d.send(.request)
        d.set(.downLimit, false)
        d.set(.upLimit, true, at: MachineInstant(nanoseconds: 3_000_000_000))
        #expect(d.machine.nextDeadline == MachineInstant(nanoseconds: 10_000_000_000))
        #expect(ParkingBarrier.settings.durationKeys.map(\.name) == ["motor_timeout", "close_delay", "hold_open", "limit_settle"])
    }

    @Test("the demo parses, holds every expect on the machine with the simulated arm, and visits every state")
    func demo() throws {
        let board = try Board<ParkingBarrier>.parse(try Self.boardText("sim.toml"), file: "sim.toml")
        let scenario = try Scenario<ParkingBarrier>.demo(for: board)
        var run = BarrierRun(armUp: false)
        var failures: [String] = []
        let groups = Dictionary(grouping: scenario.steps, by: \.time).sorted { $0.key < $1.key }
        for (time, steps) in groups {
            let nanoseconds = time.nanosecondCount
            // An expect sees everything strictly before its time.
            if let problem = run.settle(until: nanoseconds - 1) { failures.append("before \(time): \(problem)") }
            for step in steps {
                if let failed = Self.check(step.action, on: run.driver) { failures.append("line \(step.line): \(failed)") }
            }
            if let problem = run.settle(until: nanoseconds) { failures.append("at \(time): \(problem)") }
            for step in steps {
                switch step.action {
                case .pulse(let role, _):
                    guard let index = ParkingBarrier.inputIndex(named: role), case .pulse(let event) = ParkingBarrier.inputs[index].binding
                    else { Issue.record("line \(step.line): \(role) is not a pulse input"); continue }
                    _ = run.send(event)
                case .level("emergency", let on): _ = run.send(on ? .emergencyOn : .emergencyOff)
                case .level(let role, let on): _ = run.edge(BarrierDriver.Level.allCases.first { $0.role == role }!, on)
                case .command(let event): _ = run.send(event)
                default: continue
                }
                if let problem = run.sync() { failures.append("line \(step.line): \(problem)") }
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(run.log.joined(separator: "\n"))")
        #expect(run.statesSeen == Set(BarrierMachine.table.atomicStates.map(\.name)))
    }

    /// An `expect` step's failure on `driver`, or `nil` (not an expect, or it holds).
    static func check(_ action: ScenarioAction<ParkingBarrier>, on driver: BarrierDriver) -> String? {
        switch action {
        case .expectState(let name) where driver.state.name != name: return "state \(driver.state.name), expected \(name)"
        case .expectCounter(let name, let value) where driver.namedCounters[name] != value:
            return "counter \(name) \(driver.namedCounters[name].map(String.init) ?? "missing"), expected \(value)"
        case .expectOutput(let role, let on):
            let level = ParkingBarrier.outputLevel(ParkingBarrier.outputIndex(named: RoleName(role))!, state: driver.state, context: driver.context)
            return level == on ? nil : "output \(role) \(level ? 1 : 0), expected \(on ? 1 : 0)"
        default: return nil
        }
    }
}
