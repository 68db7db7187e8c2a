import ControllerRuntime
import ArgumentParser
import ControllerFSM
import ControllerHost
import ControllerSimulation

package struct Simulate<App: ControllerApplication>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "simulate",
            abstract: "Run the \(App.name) on a simulated chip, in virtual time.",
            discussion: """
                Without --script, plays a built-in demo that visits every state. A scenario is a \
                text file, one action a line, `<seconds> ACTION`; \
                \(ScenarioVocabulary<App>.knownActions). \
                Inputs are pulses and levels on the board's lines, with contact bounce.

                """ + ControllerExit.help(App.self))
    }

    package init() {}

    @Option(name: .long, help: ArgumentHelp("The board file.", valueName: "file"))
    var board: String?

    @Option(name: .long, help: ArgumentHelp("The scenario to play; - reads standard input.", valueName: "file"))
    var script: String?

    @Flag(name: .long, help: "Write one JSON object per line instead of the readable trace.")
    var json = false

    @Option(name: .long, help: "Seeds contact bounce and breakage, so runs repeat (0 to \(UInt64.max)).")
    var seed: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("The mechanism breaks with this probability, 0 to 1, at each step the application's breakage rule names; nothing for an application without one.", valueName: "P"))
    var breakProbability: Double = 0

    @Flag(name: .long, help: "Follow the wall clock instead of jumping through virtual time.")
    var realtime = false

    package func validate() throws {
        guard (0...1).contains(breakProbability) else {
            throw ValidationError("--break-probability must be between 0 and 1, got \(breakProbability)")
        }
    }

    package func run() throws {
        let boardFile = try loadSimulatedBoard(App.self, board)
        // Following the wall clock, each line must reach a pipe as it happens, not at exit.
        if realtime { Syscalls.lineBufferStandardOutput() }
        let scenario: Scenario<App>
        do {
            let vocabulary = Simulation<App>.vocabulary(for: boardFile)
            scenario = try script.map { path throws(ScenarioError) in try Scenario<App>.load(path: path, vocabulary: vocabulary) }
                ?? Scenario<App>.demo(for: boardFile)
            try Simulation<App>.check(scenario, against: boardFile)
        } catch {
            Terminal.error("\(error)")
            throw ControllerExit.badInput
        }
        let reporter: any SimulationReporter<App> = json
            ? JSONReporter<App>()
            : TextReporter<App>(colors: Terminal.wantsColor, header: "board \(boardFile.name) from \(board ?? App.builtInBoard.file), scenario \(script.map { $0 == "-" ? "<stdin>" : $0 } ?? "built-in demo"), seed \(seed)")
        let simulation: Simulation<App>
        do {
            simulation = try Simulation<App>(board: boardFile, seed: seed, breakProbability: breakProbability, reporter: reporter)
        } catch {
            Terminal.error("\(error)")
            throw ControllerExit.gpioError
        }
        let summary: SimulationSummary<App>
        do {
            summary = try simulation.run(scenario, realtime: realtime)
        } catch {
            Terminal.error("the run stopped: \(error)")
            reporter.finished(SimulationSummary<App>(
                state: simulation.controller.state, gauges: simulation.controller.gaugeValues,
                counters: simulation.controller.counterValues, endTime: simulation.clock.now().duration(since: .zero),
                failedExpectations: 0))
            throw ControllerExit.gpioError
        }
        // A machine the host had to override, whose invariants broke, or that did not settle,
        // did not run as declared.
        if summary.failedExpectations > 0 || summary.brokenInvariants > 0 || summary.outputOverrides > 0 || summary.unsettledSteps > 0 {
            throw ControllerExit.expectationFailed
        }
    }
}
