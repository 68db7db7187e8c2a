import ControllerFSM
import ControllerFSMSim
import ControllerHost
import ControllerSimulation
import ParkingBarrier
import Testing

/// Random scenarios on the simulated arm — requests at random
/// moments (some within a limit switch's debounce of the arm starting to move), vehicles on the
/// loop, the beam broken, emergencies by line and by command ending at random points of the
/// arm's travel, faults and repairs — and after every step of every one the simulator checks the
/// declaration's invariants, green's precondition (the up limit active) among them. None may
/// break, and the host may never have to override the machine.
@Suite("Parking barrier: random scenarios keep every declared invariant")
struct BarrierRandomScenarioTests {
    /// The built-in board with a short hold_open and close_delay, so that closings (and requests
    /// just after a closing starts) come often.
    static func board() throws -> Board<ParkingBarrier> {
        let text = ParkingBarrier.simBoardText
            .replacingOccurrences(of: #"hold_open = "20s""#, with: #"hold_open = "1s""#)
            .replacingOccurrences(of: #"close_delay = "1s""#, with: #"close_delay = "0.3s""#)
        return try Board<ParkingBarrier>.parse(text, file: "random.toml")
    }

    /// A scenario of `steps` random inputs; each line's changes at least `lineGap` apart, so
    /// that every pulse ends (and is seen to end) before the next begins.
    static func scenario(seed: UInt64, steps: Int = 60) -> String {
        var random = SplitMix64(seed: seed)
        var lines: [String] = []
        var now: UInt64 = 0
        var last: [String: UInt64] = [:]
        var level: [String: Bool] = [:]
        let lineGap: UInt64 = 300
        func at(_ ms: UInt64) -> String { "\(ms / 1000).\(String(1000 + ms % 1000).dropFirst())" }
        for _ in 0..<steps {
            // Mostly short gaps (same-instant and within-debounce moments included), some long.
            now += random.next(below: 8) == 0 ? random.next(below: 4000) : random.next(below: 400)
            let pick = random.next(below: 100)
            let line: String
            switch pick {
            case 0..<35: line = "request"
            case 35..<55: line = "loop"
            case 55..<65: line = "photocell"
            case 65..<75: line = "emergency"
            case 75..<92: line = "command"
            default: line = "service"
            }
            if let previous = last[line], line != "command", now < previous + lineGap { continue }
            last[line] = now
            let action: String
            switch line {
            case "request", "service": action = "pulse \(line)"
            case "command":
                action = pick < 85 ? (random.next(below: 2) == 0 ? "event emergencyOn" : "event emergencyOff") : "event fault"
            default:
                level[line, default: false].toggle()
                action = "set \(line) \(level[line]! ? "on" : "off")"
            }
            lines.append("\(at(now)) \(action)")
        }
        lines.append("\(at(now + 8000)) end")
        return lines.joined(separator: "\n") + "\n"
    }

    @Test("200 random scenarios: no invariant breaks (green only with the arm up), nothing overridden, motors never both on",
          arguments: 0..<200 as Range<UInt64>)
    func randomScenario(seed: UInt64) throws {
        let board = try Self.board()
        let text = Self.scenario(seed: seed)
        let scenario = try Scenario<ParkingBarrier>.parse(text, file: "random-\(seed)", vocabulary: Simulation.vocabulary(for: board))
        try Simulation.check(scenario, against: board)
        let recorder = BarrierSimulationTests.Recorder()
        let summary = try Simulation(board: board, seed: seed, reporter: recorder).run(scenario)
        #expect(summary.brokenInvariants == 0, "\(text)\n\(recorder.transitions.joined(separator: "\n"))")
        #expect(summary.outputOverrides == 0, "\(text)")
        #expect(recorder.bothMotorsOn.isEmpty, "\(text)")
    }
}
