import ControllerFSM
import ControllerHost
import ControllerSimulation

/// The messages of the `expect` steps that failed when `script` ran in the simulator on
/// `board`, in order: what a test of an application's scenario words compares.
func expectationFailures<App: ControllerApplication>(of script: String, on board: Board<App>, file: String) throws -> [String] {
    let failures = ExpectationFailures<App>()
    let simulation = try Simulation<App>(board: board, reporter: failures)
    let scenario = try Scenario<App>.parse(script, file: file, vocabulary: Simulation<App>.vocabulary(for: board))
    _ = try simulation.run(scenario)
    return failures.messages
}

/// A reporter that keeps only the failed expectations' messages.
final class ExpectationFailures<App: ControllerApplication>: SimulationReporter {
    var messages: [String] = []
    func output(_ role: RoleName, value: Bool, at time: MachineInstant) {}
    func dispatched(_ record: DispatchRecord<App.State, App.Event>) {}
    func expectationFailed(_ failure: ExpectationFailure) { messages.append(failure.message) }
    func finished(_ summary: SimulationSummary<App>) {}
}
