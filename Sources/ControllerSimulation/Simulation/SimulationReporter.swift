import ControllerHost
import ControllerFSM

/// Where a simulation's story goes: the CLI prints it as text or JSON lines, tests collect it.
/// Called on the simulating thread, in the order things happened.
public protocol SimulationReporter<App>: AnyObject {
    associatedtype App: ControllerApplication
    /// An output line changed (including the initial values, first).
    func output(_ role: RoleName, value: Bool, at time: MachineInstant)
    /// An event was dispatched: taken (with or without a transition) or ignored.
    func dispatched(_ record: DispatchRecord<App.State, App.Event>)
    /// An `expect` did not hold.
    func expectationFailed(_ failure: ExpectationFailure)
    /// The run ended.
    func finished(_ summary: SimulationSummary<App>)
    /// The host began holding an output at a level other than the one the machine asks for
    /// (an interlock, a failed write): once per episode.
    func outputOverridden(_ role: RoleName, reason: String, at time: MachineInstant)
    /// One of the application's checked invariants (its own, an output's precondition, an
    /// interlock's exclusion) stopped holding: once per episode.
    func invariantBroken(_ name: String, in state: String, at time: MachineInstant)
}

extension SimulationReporter {
    public func outputOverridden(_ role: RoleName, reason: String, at time: MachineInstant) {}
    public func invariantBroken(_ name: String, in state: String, at time: MachineInstant) {}
}

/// An `expect` line that did not hold.
public struct ExpectationFailure: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var time: Duration
    /// What was expected and what was found.
    public var message: String

    public var description: String { "\(file): line \(line): at \(time.secondsText) s: \(message)" }
}

/// The machine's state and gauges when the run ended.
public struct SimulationSummary<App: ControllerApplication>: Sendable, Equatable {
    /// The first region's innermost state.
    public var state: App.State
    /// Every active innermost state, one per active region: `[state]` without parallel regions.
    public var activeStates: [App.State]
    /// Every gauge at the end, in `ControllerApplication/gauges` order.
    public var gauges: CounterValues
    /// Every counter at the end, in `ControllerApplication/counterNames` order.
    public var counterValues: CounterValues
    public var endTime: Duration
    public var failedExpectations: Int
    /// How many `expect` steps were checked.
    public var checkedExpectations: Int
    /// Episodes of an output held at a level other than the machine's (`Controller/outputOverrides`).
    public var outputOverrides = 0
    /// Episodes of a checked invariant not holding (`ControllerApplication/checkedInvariants`).
    public var brokenInvariants = 0
    /// Steps of the machine that reached a bound of `MachineLimits` and were ended
    /// (`Controller/unsettledSteps`), and what the last one repeated.
    public var unsettledSteps = 0
    public var unsettledReport: String?

    public init(
        state: App.State, gauges: CounterValues, counters: CounterValues, endTime: Duration, failedExpectations: Int,
        checkedExpectations: Int = 0
    ) {
        self.state = state
        activeStates = [state]
        self.gauges = gauges
        counterValues = counters
        self.endTime = endTime
        self.failedExpectations = failedExpectations
        self.checkedExpectations = checkedExpectations
    }

    /// The active innermost states by name: `carsGo` without regions, `carsGo and lit` with two.
    public var statesText: String { activeStateNames(activeStates) }

    /// Every counter with its name, in declaration order (`ignored` last).
    public var namedCounters: [(name: String, value: Int)] {
        zip(App.counterNames, counterValues.values).map { ($0, $1) }
    }

    /// Every gauge with its name, in declaration order.
    public var namedGauges: [(name: String, value: Int)] {
        zip(App.gauges.map(\.name), gauges.values).map { ($0, $1) }
    }
}
