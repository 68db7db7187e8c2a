import ControllerFSM
import ControllerHost
import ControllerSimulation

/// The messages of the `expect` steps that failed when `script` ran in the simulator on
/// `board`, in order: what a test of an application's scenario words compares.
package func expectationFailures<App: ControllerApplication>(of script: String, on board: Board<App>, file: String) throws -> [String] {
    try simulated(script, on: board, file: file).messages
}

/// The reporter of `script`'s run in the simulator on `board`.
private func simulated<App: ControllerApplication>(_ script: String, on board: Board<App>, file: String) throws -> ExpectationFailures<App> {
    let reporter = ExpectationFailures<App>()
    let simulation = try Simulation<App>(board: board, reporter: reporter)
    let scenario = try Scenario<App>.parse(script, file: file, vocabulary: Simulation<App>.vocabulary(for: board))
    _ = try simulation.run(scenario)
    return reporter
}

/// What a scenario did that an application's test compares, besides its expectations: each
/// output written (`3 lamp=1`), each override the host made (`3 lamp: held off by its
/// interlock`) and each invariant that broke (`3 NAME, in STATES`), in order, times in seconds.
package func simulationEvents<App: ControllerApplication>(of script: String, on board: Board<App>, file: String) throws -> [String] {
    try simulated(script, on: board, file: file).events
}

/// A reporter that keeps the failed expectations' messages, and what `simulationEvents` lists.
package final class ExpectationFailures<App: ControllerApplication>: SimulationReporter {
    package var messages: [String] = []
    package var events: [String] = []
    package init() {}
    package func output(_ role: RoleName, value: Bool, at time: MachineInstant) { events.append("\(seconds(time)) \(role)=\(value ? 1 : 0)") }
    package func dispatched(_ record: DispatchRecord<App.State, App.Event>) {}
    package func expectationFailed(_ failure: ExpectationFailure) { messages.append(failure.message) }
    package func finished(_ summary: SimulationSummary<App>) {}
    package func outputOverridden(_ role: RoleName, reason: String, at time: MachineInstant) { events.append("\(seconds(time)) \(role): \(reason)") }
    package func invariantBroken(_ name: String, in state: String, at time: MachineInstant) { events.append("\(seconds(time)) \(name), in \(state)") }

    private func seconds(_ time: MachineInstant) -> String {
        let milliseconds = time.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }
}
