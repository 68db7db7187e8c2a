import ControllerRuntime
import ArgumentParser
import ControllerHost
import ControllerSimulation

package struct Check<App: ControllerApplication>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "check",
            abstract: "Validate a board file (and a scenario) without running anything.",
            discussion: ControllerExit.help(App.self))
    }

    package init() {}

    @Option(name: .long, help: ArgumentHelp("The board file.", valueName: "file"))
    var board: String

    @Option(name: .long, help: ArgumentHelp("A scenario to check against the board; - reads standard input.", valueName: "file"))
    var script: String?

    package func run() throws {
        // A simulated board is checked as `run` and `simulate` would run it.
        let boardFile = try loadRunnableBoard(App.self, board)
        print("\(board): ok — board \(boardFile.name), backend \(boardFile.backend.rawValue), chip \(boardFile.chip), "
            + "inputs \(App.inputs.map(\.role).filter { boardFile.inputs[$0] != nil }.map(\.rawValue).joined(separator: " ")), "
            + "outputs \(App.outputs.map(\.role).filter { boardFile.outputs[$0] != nil }.map(\.rawValue).joined(separator: " "))")
        guard let script else { return }
        do {
            let scenario = try Scenario<App>.load(path: script, vocabulary: Simulation<App>.vocabulary(for: boardFile))
            try Simulation<App>.check(scenario, against: boardFile)
            print("\(scenario.file): ok — \(scenario.steps.count) steps, ends at \(scenario.endTime.secondsText) s")
        } catch {
            Terminal.error("\(error)")
            throw ControllerExit.badInput
        }
    }
}
