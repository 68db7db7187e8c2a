import ArgumentParser
import ControllerFSM
import ControllerHost
import ControllerRuntime

/// `explore`: every sequence of inputs, commands and timer expiries up to a depth, from every
/// start-up the level inputs can give, with the invariants, output preconditions and interlocks
/// checked after every step: what a reviewer runs before a controller meets hardware.
///
/// chartd's own command: a chart's author has no Swift tests to call `exploreEveryStart` from,
/// as a Swift controller's has (and the Swift daemons' size budget is spent: docs/performance.md).
struct Explore<App: ControllerApplication>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "explore",
            abstract: "Try every sequence of the \(App.name)'s inputs, commands and timers up to a depth, checking what must always hold.",
            discussion: """
                Breadth-first from every start-up the level inputs can give (each combination of them active or not): \
                each pulse, each level's edges, each command and each timer's expiry, with every invariant, output \
                precondition and interlock checked after each step. A violation is printed with a shortest sequence \
                of steps that reaches it, as scenario lines, and exits 1. States no sequence reached are listed. \
                The board's section gives the settings (--board; the built-in board's without).
                """)
    }

    init() {}

    @Option(name: .long, help: "The longest sequence of steps tried (1 to \(ExploreLimits.maximumDepth)).")
    var depth = ExplorationDefaults.depth

    @Option(name: .long, help: "The board file whose section gives the settings.")
    var board: String?

    func validate() throws {
        guard (1...ExploreLimits.maximumDepth).contains(depth) else {
            throw ValidationError("--depth must be from 1 to \(ExploreLimits.maximumDepth), got \(depth)")
        }
        let levels = App.inputs.filter(\.binding.isLevel).count
        guard levels <= ExplorationDefaults.maximumLevelInputs else {
            throw ValidationError("\(App.name) has \(levels) level inputs: 2^\(levels) start-ups are too many to explore (at most \(ExplorationDefaults.maximumLevelInputs))")
        }
    }

    func run() throws {
        let settings = try loadSimulatedBoard(App.self, board).settings
        let report = App.exploreEveryStart(depth: depth, settings: settings) { _, context in App.explorationKey(context) }
        print("\(App.name): \(report)")
        let unreached = App.table.atomicStates.filter { !report.statesSeen.contains($0) }
        if !unreached.isEmpty, report.violation == nil {
            print("states no sequence of \(depth) steps reached: \(unreached.map(\.name).joined(separator: ", "))")
        }
        if report.violation != nil { throw ControllerExit.expectationFailed }
    }
}

/// The bounds of `explore`.
enum ExploreLimits {
    /// The deepest search asked for: each level multiplies the configurations by the steps.
    static let maximumDepth = 40
}
