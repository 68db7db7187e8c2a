import ControllerFSM
import CFuzzDriver
import ControllerHost
import ParkingBarrier
import Turnstile
import ControllerSimulation

/// Any bytes as a scenario, for each application's built-in board: the turnstile's (its own
/// words: `coin`, `push hold`) and the parking barrier's (the generic verbs, its plant's `arm
/// stuck|free`, its limit switches refused as the plant's). Parsed, checked against the board
/// and — when both accept it and it is short in virtual time — played. A scenario or a
/// `ScenarioError`, never a crash or a hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    play(text, on: BoardFile.defaultSim)
    play(text, on: barrierBoard)
    return 0
}

/// Read once: `builtIn` parses the board's text on every use.
let barrierBoard = Board<ParkingBarrier>.builtIn

/// The longest scenario played, in virtual time and in steps: exact and fast, but days of it
/// are not fuzzing.
let longestPlayed = Duration.seconds(3600)
let mostStepsPlayed = 200

func play<App: ControllerApplication>(_ text: String, on board: Board<App>) {
    do {
        let scenario = try Scenario<App>.parse(text, file: "fuzz.txt", vocabulary: Simulation<App>.vocabulary(for: board))
        try Simulation<App>.check(scenario, against: board)
        guard scenario.endTime <= longestPlayed, scenario.steps.count <= mostStepsPlayed else { return }
        let simulation = try Simulation<App>(board: board, reporter: Silent<App>())
        try simulation.run(scenario)
    } catch {
        _ = "\(error)"
    }
}

final class Silent<App: ControllerApplication>: SimulationReporter {
    func output(_ name: RoleName, value: Bool, at time: MachineInstant) {}
    func dispatched(_ record: DispatchRecord<App.State, App.Event>) {}
    func expectationFailed(_ failure: ExpectationFailure) {}
    func finished(_ summary: SimulationSummary<App>) {}
}

/// The entry point SwiftPM gives an executable: hands the command line to libFuzzer.
@_cdecl("FuzzScenario_main")
public func fuzzScenarioMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzScenario(data!, size) }
}
