import ControllerFSM
import CFuzzDriver
import ControllerHost
import Turnstile
import ControllerSimulation

/// Any bytes as a scenario for the default board: parsed, checked against the board and — when
/// both accept it and it is short in virtual time — played. A scenario or a `ScenarioError`,
/// never a crash or a hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let board = BoardFile.defaultSim
    do {
        let scenario = try Scenario<TurnstileApplication>.parse(text, file: "fuzz.txt", vocabulary: TurnstileSimulation.vocabulary(for: board))
        try TurnstileSimulation.check(scenario, against: board)
        // Playing is exact and fast in virtual time, but days of it are not fuzzing.
        guard scenario.endTime <= .seconds(3600), scenario.steps.count <= 200 else { return 0 }
        let simulation = try TurnstileSimulation(board: board, reporter: Silent())
        try simulation.run(scenario)
    } catch {
        _ = "\(error)"
    }
    return 0
}

final class Silent: SimulationReporter {
    func output(_ name: RoleName, value: Bool, at time: MachineInstant) {}
    func dispatched(_ record: DispatchRecord<TurnstileState, TurnstileEvent>) {}
    func expectationFailed(_ failure: ExpectationFailure) {}
    func finished(_ summary: SimulationSummary<TurnstileApplication>) {}
}

/// The entry point SwiftPM gives an executable: hands the command line to libFuzzer.
@_cdecl("FuzzScenario_main")
public func fuzzScenarioMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzScenario(data!, size) }
}
