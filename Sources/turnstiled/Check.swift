import ArgumentParser
import ControllerHost
import Turnstile
import ControllerSimulation

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate a board file (and a scenario) without running anything.",
        discussion: exitStatusHelp)

    @Option(name: .long, help: ArgumentHelp("The board file.", valueName: "file"))
    var board: String

    @Option(name: .long, help: ArgumentHelp("A scenario to check against the board; - reads standard input.", valueName: "file"))
    var script: String?

    func run() throws {
        var boardFile = try loadBoard(board)
        // A simulated board is checked as `simulate` would run it.
        if boardFile.backend == .sim { boardFile = try loadSimulatedBoard(board) }
        print("\(board): ok — board \(boardFile.name), backend \(boardFile.backend.rawValue), chip \(boardFile.chip), "
            + "inputs \(InputRole.allCases.filter { boardFile.inputs[$0.name] != nil }.map(\.rawValue).joined(separator: " ")), "
            + "outputs \(OutputRole.allCases.filter { boardFile.outputs[$0.name] != nil }.map(\.rawValue).joined(separator: " "))")
        guard let script else { return }
        do {
            let scenario = try Scenario<TurnstileApplication>.load(path: script, vocabulary: TurnstileSimulation.vocabulary(for: boardFile))
            try TurnstileSimulation.check(scenario, against: boardFile)
            print("\(scenario.file): ok — \(scenario.steps.count) steps, ends at \(scenario.endTime.secondsText) s")
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.badInput
        }
    }
}
