import ControllerFSM
import ControllerHost
import ControllerSimulation
import ParkingBarrier
import Testing

/// The barrier on the runtime's own simulator: the generic host on a simulated chip wired as
/// boards/sim.toml says (active-low lines, contact bounce, debounce), driven by a scenario in
/// the generic verbs, with the arm played by hand (`set up_limit on`): without the simulated
/// plant, to reach what the arm would never do by itself (leave its rest uncommanded).
@Suite("Parking barrier: on the generic host and simulator")
struct BarrierSimulationTests {
    /// Collects what a run reports.
    final class Recorder: SimulationReporter {
        typealias App = ParkingBarrier
        var failures: [ExpectationFailure] = []
        var levels: [RoleName: Bool] = [:]
        var bothMotorsOn: [MachineInstant] = []
        var transitions: [String] = []
        /// Every write after the initial levels, `role=0|1`.
        var writes: [String] = []

        func output(_ role: RoleName, value: Bool, at time: MachineInstant) {
            if levels[role] != nil { writes.append("\(role)=\(value ? 1 : 0)") }
            levels[role] = value
            if levels["motor_up"] == true && levels["motor_down"] == true { bothMotorsOn.append(time) }
        }

        func dispatched(_ record: DispatchRecord<BarrierState, BarrierEvent>) {
            transitions.append("\(record.from.name) \(record.event.name) \(record.outcome == .ignored ? "ignored" : record.to.name)")
        }

        func expectationFailed(_ failure: ExpectationFailure) { failures.append(failure) }
        func finished(_: SimulationSummary<ParkingBarrier>) {}
    }

    static let scenario = """
        0     set down_limit on
        0     pulse request
        0.5   expect state opening
        0.5   expect output motor_up 1
        0.5   expect output red 1
        0.5   set down_limit off
        3     set up_limit on
        3.5   expect state open
        3.5   expect output motor_up 0
        3.5   expect output green 1
        3.5   expect output red 0
        4     set loop on
        5     set loop off
        5.5   expect counter passages 1
        6.1   expect state closing
        6.1   expect output motor_down 1
        6.5   set up_limit off
        7     set photocell on
        7.5   expect state opening
        7.5   expect output motor_down 0
        7.5   expect output motor_up 1
        7.5   expect counter reversals 1
        8     set photocell off
        8.5   set up_limit on
        9     expect state open
        9.5   event repair
        10    expect counter ignored 1
        10    set emergency on
        10.5  expect state emergency
        10.5  expect output motor_up 0
        10.5  pulse request
        11    set emergency off
        11.5  expect state open
        11.5  expect counter refusedRequests 1
        12    event fault
        12.5  expect state fault
        12.5  expect output alarm 1
        12.5  expect output red 1
        13    pulse service
        13.5  expect state open
        13.5  expect output alarm 0
        13.5  expect counter repairs 1
        33.5  expect state closing
        33.5  expect counter expiredOpenings 1
        34    set up_limit off
        36    set down_limit on
        36.5  expect state closed
        36.5  expect output motor_down 0
        36.5  expect counter ignored 1
        37    set down_limit off
        37.5  expect state fault
        37.5  expect counter faults 2
        37.5  expect counter requests 1
        38    end
        """

    static func board() throws -> Board<ParkingBarrier> {
        try Board<ParkingBarrier>.parse(try ParkingBarrierDeclarationTests.boardText("sim.toml"), file: "sim.toml")
    }

    @Test("every row a scenario can reach holds on the simulated lines; level edges are never counted as ignored")
    func scenarioHolds() throws {
        let board = try Self.board()
        let scenario = try Scenario<ParkingBarrier>.parse(Self.scenario, file: "barrier", vocabulary: Simulation.vocabulary(for: board))
        try Simulation.check(scenario, against: board, plant: false)
        let recorder = Recorder()
        let summary = try Simulation(board: board, plant: false, reporter: recorder).run(scenario)
        #expect(recorder.failures.isEmpty, "\(recorder.failures.map(\.description).joined(separator: "\n"))\n\(recorder.transitions.joined(separator: "\n"))")
        #expect(summary.checkedExpectations == scenario.steps.filter { "\($0.action)".hasPrefix("expect") }.count)
        #expect(summary.state == .fault)
        #expect(recorder.bothMotorsOn.isEmpty)
        #expect(summary.namedCounters.map(\.name) == ParkingBarrier.counterNames)
    }

    @Test("an expect that does not hold is reported: the run can fail")
    func failingExpect() throws {
        let board = try Self.board()
        let text = "0 pulse request\n1 expect state closed\n2 end\n"
        let scenario = try Scenario<ParkingBarrier>.parse(text, file: "barrier", vocabulary: Simulation.vocabulary(for: board))
        let recorder = Recorder()
        let summary = try Simulation(board: board, reporter: recorder).run(scenario)
        #expect(summary.failedExpectations == 1)
        #expect(recorder.failures.first?.line == 2)
    }

    @Test("a barrier started during a fire alarm comes up in emergency, lifting the arm")
    func startedDuringAlarm() throws {
        let board = try Self.board()
        let text = "0 set emergency on\n0.5 expect state emergency\n0.5 expect output motor_up 1\n1 end\n"
        let scenario = try Scenario<ParkingBarrier>.parse(text, file: "barrier", vocabulary: Simulation.vocabulary(for: board))
        let recorder = Recorder()
        try Simulation(board: board, reporter: recorder).run(scenario)
        #expect(recorder.failures.isEmpty, "\(recorder.failures)")
    }
}
