import ControllerFSM
import ControllerHost
import ControllerSimulation
import ParkingBarrier
import Testing

/// The barrier with its simulated arm behind the runtime's simulator: the motors move the arm,
/// the arm's limit switches bounce on their lines and are debounced like every input.
@Suite("Parking barrier: the simulated arm behind the simulator")
struct BarrierPlantSimulationTests {
    typealias Recorder = BarrierSimulationTests.Recorder

    static func builtInBoard() throws -> Board<ParkingBarrier> {
        try Board<ParkingBarrier>.parse(ParkingBarrier.simBoardText, file: ParkingBarrier.simBoardFile)
    }

    /// Plays `text` on `board` with the arm; the recorder and the summary.
    static func play(_ text: String, on board: Board<ParkingBarrier>) throws -> (Recorder, SimulationSummary<ParkingBarrier>, Int) {
        let scenario = try Scenario<ParkingBarrier>.parse(text, file: "barrier", vocabulary: Simulation.vocabulary(for: board))
        try Simulation.check(scenario, against: board)
        let recorder = Recorder()
        let summary = try Simulation(board: board, reporter: recorder).run(scenario)
        return (recorder, summary, scenario.steps.count { "\($0.action)".hasPrefix("expect") })
    }

    @Test("the built-in demo holds on the built-in board, every expect checked, the motors never both on")
    func demo() throws {
        let board = try Self.builtInBoard()
        let (recorder, summary, expectations) = try Self.play(ParkingBarrier.demoScenario(for: board), on: board)
        #expect(recorder.failures.isEmpty, "\(recorder.failures.map(\.description).joined(separator: "\n"))\n\(recorder.transitions.joined(separator: "\n"))")
        #expect(summary.checkedExpectations == expectations && expectations > 20)
        #expect(summary.state == .closed)
        #expect(recorder.bothMotorsOn.isEmpty)
        #expect(Set(recorder.transitions.map { String($0.split(separator: " ")[0]) }) == Set(BarrierMachine.table.atomicStates.map(\.name)),
                "the demo visits every state")
    }

    @Test("the demo holds on every seed of the contact bounce", arguments: [2, 3, 17, 99] as [UInt64])
    func demoOnSeeds(seed: UInt64) throws {
        let board = try Self.builtInBoard()
        let scenario = try Scenario<ParkingBarrier>.parse(
            ParkingBarrier.demoScenario(for: board), file: "demo", vocabulary: Simulation.vocabulary(for: board))
        let recorder = Recorder()
        try Simulation(board: board, seed: seed, reporter: recorder).run(scenario)
        #expect(recorder.failures.isEmpty, "\(recorder.failures.map(\.description))")
    }

    @Test("an arm stuck while opening is a fault after motor_timeout; freed and repaired, it opens")
    func armStuck() throws {
        let board = try Self.builtInBoard()
        let (recorder, summary, _) = try Self.play("""
            0     pulse request
            1     arm stuck
            1.5   expect state opening
            6.5   expect state fault
            6.5   expect counter faults 1
            6.5   expect output motor_up 0
            6.5   expect output alarm 1
            7     arm free
            7     pulse service
            7.5   expect state opening
            8.5   expect state opening
            9.5   expect state open
            9.5   expect output alarm 0
            10    end
            """, on: board)
        #expect(recorder.failures.isEmpty, "\(recorder.failures.map(\.description).joined(separator: "\n"))")
        #expect(summary.state == .open)
    }

    @Test("without the jam, the same run opens in travel_time: the stuck test can fail")
    func armNotStuck() throws {
        let board = try Self.builtInBoard()
        let (_, summary, _) = try Self.play("0 pulse request\n6.5 end\n", on: board)
        #expect(summary.state == .open)
        #expect(summary.namedCounters.first { $0.name == "faults" }?.value == 0)
    }

    @Test("arm = \"up\": the arm starts on up_limit, so a request opens at once and no motor runs")
    func armStartsUp() throws {
        let text = ParkingBarrier.simBoardText.replacingOccurrences(of: "arm = \"down\"", with: "arm = \"up\"")
        let board = try Board<ParkingBarrier>.parse(text, file: "up.toml")
        #expect(board.sim.plant.startsAtEnd)
        let (recorder, summary, _) = try Self.play("""
            0.5   expect state closed
            1     pulse request
            1.5   expect state open
            1.5   expect output green 1
            2     end
            """, on: board)
        #expect(recorder.failures.isEmpty, "\(recorder.failures.map(\.description).joined(separator: "\n"))")
        #expect(summary.state == .open)
        #expect(!recorder.writes.contains("motor_up=1"), "\(recorder.writes)")
    }

    @Test("travel_time sets how long the arm takes: 5 s is not yet open at 4.5 s, open at 5.5 s")
    func travelTime() throws {
        let text = ParkingBarrier.simBoardText.replacingOccurrences(of: "travel_time = \"3s\"", with: "travel_time = \"5s\"")
        let board = try Board<ParkingBarrier>.parse(text, file: "slow.toml")
        #expect(board.sim.plant.travelTime == .seconds(5))
        let (recorder, _, _) = try Self.play("0 pulse request\n4.5 expect state opening\n5.5 expect state open\n6 end\n", on: board)
        #expect(recorder.failures.isEmpty, "\(recorder.failures.map(\.description))")
    }

    @Test("the plant's [sim] keys are checked as the section's own: the file, the key, and the fix", arguments: [
        ("travel_time = \"3s\"", "travel_time = \"fast\"", "sim.travel_time", "a number and a unit"),
        ("travel_time = \"3s\"", "travel_time = \"0s\"", "sim.travel_time", "longer than zero"),
        ("arm = \"down\"", "arm = \"upp\"", "sim.arm", "did you mean \"up\""),
        ("arm = \"down\"", "arm = 1", "sim.arm", "\"down\", \"up\""),
        ("arm = \"down\"", "arn = \"down\"", "sim.arn", "travel_time, arm"),
    ])
    func plantKeyErrors(original: String, replacement: String, keyPath: String, hint: String) throws {
        let text = ParkingBarrier.simBoardText.replacingOccurrences(of: original, with: replacement)
        #expect(text != ParkingBarrier.simBoardText)
        #expect {
            _ = try Board<ParkingBarrier>.parse(text, file: "bad.toml")
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("bad.toml: \(keyPath):") && message.contains(hint)
        }
    }

    @Test("a scenario may not drive a limit switch the arm drives, nor use an unknown arm word")
    func refusals() throws {
        let board = try Self.builtInBoard()
        let driving = try Scenario<ParkingBarrier>.parse("1 set up_limit on\n2 end\n", file: "s", vocabulary: Simulation.vocabulary(for: board))
        #expect {
            try Simulation.check(driving, against: board)
        } throws: { error in
            "\(error)".hasPrefix("s: line 1:") && "\(error)".contains("drives the up_limit line")
        }
        // By hand, without the arm, the same line is the scenario's to drive.
        try Simulation.check(driving, against: board, plant: false)
        #expect {
            _ = try Scenario<ParkingBarrier>.parse("1 arm jammed\n", file: "s", vocabulary: Simulation.vocabulary(for: board))
        } throws: { error in
            "\(error)".contains("\"arm stuck\" or \"arm free\"")
        }
    }
}

/// The barrier's timing relations, on the runtime's public board API.
@Suite("Parking barrier: the relations between its timings")
struct BarrierRelationTests {
    static func board(_ original: String, _ replacement: String) -> String {
        ParkingBarrier.simBoardText.replacingOccurrences(of: original, with: replacement)
    }

    @Test("every board: a motor timeout under a second plus the limit debounce, or a close delay under 250 ms, is refused", arguments: [
        ("motor_timeout = \"6s\"", "motor_timeout = \"1s\"", "barrier.motor_timeout", "1.01"),
        ("close_delay = \"1s\"", "close_delay = \"100ms\"", "barrier.close_delay", "0.25"),
    ])
    func everyBoard(original: String, replacement: String, key: String, smallest: String) {
        #expect {
            _ = try Board<ParkingBarrier>.parse(Self.board(original, replacement), file: "b.toml")
        } throws: { error in
            "\(error)".hasPrefix("b.toml: \(key):") && "\(error)".contains("the smallest that works on this board is \(smallest) s")
        }
    }

    @Test("simulated: the arm must be seen at its end before the motor timeout; travel_time counts")
    func simulated() throws {
        // A simulated board is refused as soon as it is read (one validation for every entry
        // point), with the message `checkTimings` gives.
        #expect {
            _ = try Board<ParkingBarrier>.parse(Self.board("travel_time = \"3s\"", "travel_time = \"6s\""), file: "slow.toml")
        } throws: { error in
            "\(error)".hasPrefix("slow.toml: barrier.motor_timeout:") && "\(error)".contains("6.013001 s")
        }
        try Simulation.checkTimings(of: try BarrierPlantSimulationTests.builtInBoard(), file: "sim.toml")
    }
}
