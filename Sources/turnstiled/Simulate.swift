import ArgumentParser
import ControllerFSM
import ControllerHost
import Turnstile
import ControllerSimulation

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the turnstile on a simulated chip, in virtual time.",
        discussion: """
            Without --script, plays a built-in demo that visits every state. A scenario is a \
            text file, one action a line: `<seconds> coin|push|push hold S|repair|emergency on|off|fault|\
            expect state NAME|expect counter NAME N|expect credit N|expect output NAME 0|1|end`. \
            Inputs are pulses on the board's lines, with contact bounce.

            """ + exitStatusHelp)

    @Option(name: .long, help: ArgumentHelp("The board file.", valueName: "file"))
    var board: String?

    @Option(name: .long, help: ArgumentHelp("The scenario to play; - reads standard input.", valueName: "file"))
    var script: String?

    @Flag(name: .long, help: "Write one JSON object per line instead of the readable trace.")
    var json = false

    @Option(name: .long, help: "Seeds contact bounce and breakage, so runs repeat (0 to \(UInt64.max)).")
    var seed: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("After each passage, the arm breaks with this probability, 0 to 1.", valueName: "P"))
    var breakProbability: Double = 0

    @Flag(name: .long, help: "Follow the wall clock instead of jumping through virtual time.")
    var realtime = false

    func validate() throws {
        guard (0...1).contains(breakProbability) else {
            throw ValidationError("--break-probability must be between 0 and 1, got \(breakProbability)")
        }
    }

    func run() throws {
        let boardFile = try loadSimulatedBoard(board)
        // Following the wall clock, each line must reach a pipe as it happens, not at exit.
        if realtime { Syscalls.lineBufferStandardOutput() }
        let scenario: Scenario<TurnstileApplication>
        do {
            let vocabulary = TurnstileSimulation.vocabulary(for: boardFile)
            scenario = try script.map { path throws(ScenarioError) in try Scenario<TurnstileApplication>.load(path: path, vocabulary: vocabulary) }
                ?? Scenario<TurnstileApplication>.demo(for: boardFile)
            try TurnstileSimulation.check(scenario, against: boardFile)
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.badInput
        }
        let reporter: any SimulationReporter<TurnstileApplication> = json
            ? JSONReporter()
            : TextReporter(colors: Terminal.wantsColor, header: "board \(boardFile.name) (\(board ?? "built-in boards/sim.toml")), scenario \(script.map { $0 == "-" ? "<stdin>" : $0 } ?? "built-in demo"), seed \(seed)")
        let simulation: TurnstileSimulation
        do {
            simulation = try TurnstileSimulation(board: boardFile, seed: seed, breakProbability: breakProbability, reporter: reporter)
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.gpioError
        }
        let summary: SimulationSummary<TurnstileApplication>
        do {
            summary = try simulation.run(scenario, realtime: realtime)
        } catch {
            Terminal.error("the run stopped: \(error)")
            reporter.finished(SimulationSummary<TurnstileApplication>(
                state: simulation.controller.state, gauges: simulation.controller.gaugeValues,
                counters: simulation.controller.counterValues, endTime: simulation.clock.now().duration(since: .zero),
                failedExpectations: 0))
            throw ExitStatus.gpioError
        }
        if summary.failedExpectations > 0 { throw ExitStatus.expectationFailed }
    }
}

/// Reads a board to simulate, or the built-in one, refusing timings the simulation cannot
/// honour (see `TurnstileSimulation.checkTimings`); a bad file exits with status 2.
func loadSimulatedBoard(_ path: String?) throws -> BoardFile {
    let board = try loadBoard(path)
    do {
        try TurnstileSimulation.checkTimings(of: board, file: path ?? "boards/sim.toml")
    } catch {
        Terminal.error("\(error)")
        throw ExitStatus.badInput
    }
    return board
}

/// Reads the board file, or the built-in simulated board; a bad file exits with status 2.
func loadBoard(_ path: String?) throws -> BoardFile {
    guard let path else { return BoardFile.defaultSim }
    do {
        return try BoardFile.load(path: path)
    } catch {
        Terminal.error("\(error)")
        throw ExitStatus.badInput
    }
}
