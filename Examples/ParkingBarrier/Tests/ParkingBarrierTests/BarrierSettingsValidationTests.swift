import ControllerFSM
import ControllerHost
import ControllerSimulation
import Foundation
import ParkingBarrier
import Testing

/// The barrier's timings under the runtime's one validation: every timing
/// has a floor, and each floor holds at every entry point — a board file (as `check`, `run`,
/// `simulate` and a reload read it) and a scenario's `set`.
@Suite("Parking barrier: one validation of its timings, at every entry point")
struct BarrierSettingsValidationTests {
    @Test("every [barrier] timing has a floor", arguments: ParkingBarrier.settings.durationKeys.map(\.name))
    func everyTimingHasAFloor(key: String) {
        let keys = (ParkingBarrier.settings.relations + ParkingBarrier.settings.simulatedRelations).map(\.key)
        #expect(keys.contains("barrier.\(key)"))
    }

    static func simBoard(_ key: String, _ value: String) -> String {
        ParkingBarrier.simBoardText.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("\(key) = ") ? "\(key) = \"\(value)\"" : String($0) }
            .joined(separator: "\n")
    }

    @Test("hold_open \"20ms\" (for 20s) is refused by the board file, a reload and a scenario's set")
    func holdOpenTypo() throws {
        let text = Self.simBoard("hold_open", "20ms")
        #expect(throws: BoardFileError.self) { try Board<ParkingBarrier>.parse(text, file: "board.toml") }
        let base = try Board<ParkingBarrier>.parse(ParkingBarrier.simBoardText, file: "sim.toml")
        let scenario = try Scenario<ParkingBarrier>.parse("1 set hold_open 0.02\n2 end\n", file: "s.txt", vocabulary: Simulation.vocabulary(for: base))
        #expect(throws: ScenarioError.self) { try Simulation.check(scenario, against: base) }
    }

    @Test("a simulated board's motor_timeout shorter than the arm's travel is refused by a plain read and a reload as by check")
    func simulatedMotorTimeout() throws {
        let text = Self.simBoard("motor_timeout", "1.5s")  // travel_time is 3 s
        #expect(throws: BoardFileError.self) { try Board<ParkingBarrier>.parse(text, file: "board.toml") }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("barrier-\(UUID().uuidString).toml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: BoardFileError.self) { try Board<ParkingBarrier>.loadRunnable(path: path) }
    }

    @Test("scenario sets below a floor are refused naming the line: close_delay 0.01, limit_settle 0.001")
    func scenarioSets() throws {
        let base = try Board<ParkingBarrier>.parse(ParkingBarrier.simBoardText, file: "sim.toml")
        for (line, key) in [("3 set close_delay 0.01", "barrier.close_delay"), ("3 set limit_settle 0.001", "barrier.limit_settle")] {
            let scenario = try Scenario<ParkingBarrier>.parse("1 pulse request\n\(line)\n5 end\n", file: "s.txt",
                                                              vocabulary: Simulation.vocabulary(for: base))
            do {
                try Simulation.check(scenario, against: base)
                Issue.record("\(line) was taken")
            } catch {
                #expect(error.line == 2 && "\(error)".contains(key), "\(error)")
            }
        }
    }
}
