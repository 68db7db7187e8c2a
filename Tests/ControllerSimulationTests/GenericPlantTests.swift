import ControllerTestSupport
import TurnstileTestSupport
import ControllerFSM
import Foundation
import ControllerHost
import ControllerSimulation
import ControllerFSMSim
import Testing
import Turnstile

/// The simulator's plant hook on a tiny machine declared in the tests (the shuttle and its
/// track): the plant's `[sim]` keys, its inputs bouncing and debounced on their lines, and the
/// applications without one refusing its keys.
@Suite("Simulated plant: generic, on a tiny machine")
struct GenericPlantTests {
    final class Reporter: SimulationReporter {
        typealias App = ShuttleBackwardFirst
        var transitions: [String] = []
        func output(_: RoleName, value _: Bool, at _: MachineInstant) {}
        func dispatched(_ record: DispatchRecord<ShuttleState, ShuttleEvent>) {
            transitions.append("\(record.time.seconds) \(record.from.name) \(record.event.name) \(record.to.name)")
        }
        func expectationFailed(_: ExpectationFailure) {}
        func finished(_: SimulationSummary<ShuttleBackwardFirst>) {}
    }

    @Test("the track answers forward with end after track_time (bounced, then debounced): the shuttle reverses", arguments: [
        ("", 1.0), ("[sim]\ntrack_time = \"2.5s\"\n", 2.5),
    ])
    func reverses(sim: String, seconds: Double) throws {
        let board = try ShuttleBackwardFirst.board(sim: "[sim]\nbounce_edges = 4\nbounce_window = \"3ms\"\n"
            + sim.replacingOccurrences(of: "[sim]\n", with: ""))
        let scenario = try Scenario<ShuttleBackwardFirst>.parse(
            "\(seconds + 0.5) expect state backward\n\(seconds + 1) end\n", file: "s", vocabulary: Simulation.vocabulary(for: board))
        let reporter = Reporter()
        let summary = try Simulation(board: board, reporter: reporter).run(scenario)
        #expect(summary.failedExpectations == 0, "\(reporter.transitions)")
        let arrival = try #require(reporter.transitions.first { $0.contains("arrived") })
        // Seen one debounce period (10 ms) after the bounce settles, never before the end.
        let time = try #require(Double(arrival.split(separator: " ")[0]))
        #expect(time > seconds && time < seconds + 0.02, "\(arrival)")
    }

    @Test("without the plant, nothing moves the end switch")
    func withoutPlant() throws {
        let board = try ShuttleBackwardFirst.board()
        let scenario = try Scenario<ShuttleBackwardFirst>.parse("3 end\n", file: "s", vocabulary: Simulation.vocabulary(for: board))
        let summary = try Simulation(board: board, plant: false, reporter: Reporter()).run(scenario)
        #expect(summary.state == .forward)
    }

    @Test("a plant's key is an unknown [sim] key for an application without that plant")
    func refusedWithoutPlant() throws {
        #expect {
            _ = try ShuttleForwardFirst.board(sim: "[sim]\ntrack_time = \"1s\"\n")
        } throws: { error in
            "\(error)".hasPrefix("shuttle.toml: sim.track_time: unknown key \"track_time\"")
        }
        let turnstile = try String(contentsOfFile: repositoryPath("boards/sim.toml"), encoding: .utf8)
        #expect {
            _ = try BoardFile.parse(turnstile + "travel_time = \"3s\"\n", file: "sim.toml")
        } throws: { error in
            "\(error)".hasPrefix("sim.toml: sim.travel_time: unknown key \"travel_time\"")
        }
    }

    @Test("a wrong plant value is refused naming the file, the key and the fix")
    func wrongValue() throws {
        #expect {
            _ = try ShuttleBackwardFirst.board(sim: "[sim]\ntrack_time = 3\n")
        } throws: { error in
            "\(error)" == "shuttle.toml: sim.track_time: expected a duration string, got integer 3; "
                + "write a number and a unit (ns, us, ms, s) in quotes, e.g. track_time = \"1s\""
        }
    }
}

@Suite("Simulated plant: the simulation lets go of its chip")
struct PlantCycleTests {
    @Test("a simulation with a plant, and one without, is freed with its chip when it is done (no cycle through the plant)")
    func simulationIsFreed() throws {
        weak var shuttleChip: SimChip?
        weak var turnstileChip: SimChip?
        do {
            let board = try ShuttleBackwardFirst.board()
            let scenario = try Scenario<ShuttleBackwardFirst>.parse("2 end\n", file: "s", vocabulary: Simulation.vocabulary(for: board))
            let simulation = try Simulation(board: board, reporter: GenericPlantTests.Reporter())
            try simulation.run(scenario)
            shuttleChip = simulation.chip
            turnstileChip = try TurnstileSimulation(board: .defaultSim, reporter: SimulationRecorder()).chip
        }
        #expect(shuttleChip == nil && turnstileChip == nil)
    }
}
