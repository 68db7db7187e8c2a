import ControllerHost
import Turnstile
import ControllerFSM

/// Where a simulation's story goes: the CLI prints it as text or JSON lines, tests collect it.
/// Called on the simulating thread, in the order things happened.
public protocol SimulationReporter: AnyObject {
    /// An output line changed (including the initial values, first).
    func output(_ role: OutputRole, value: Bool, at time: MachineInstant)
    /// An event was dispatched: taken (with or without a transition) or ignored.
    func dispatched(_ record: DispatchRecord<TurnstileState, TurnstileEvent>)
    /// An `expect` did not hold.
    func expectationFailed(_ failure: ExpectationFailure)
    /// The run ended.
    func finished(_ summary: SimulationSummary)
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

/// The state of the turnstile when the run ended.
public struct SimulationSummary: Sendable, Equatable {
    public var state: TurnstileState
    public var credit: Int
    public var counters: TurnstileCounters
    /// Virtual time at the end.
    public var endTime: Duration
    public var failedExpectations: Int
    /// How many `expect` lines were checked: "every expect held" is claimed only of those (a
    /// run with none, or one stopped before its expects, claims nothing).
    public var checkedExpectations: Int

    public init(
        state: TurnstileState, credit: Int, counters: TurnstileCounters, endTime: Duration, failedExpectations: Int,
        checkedExpectations: Int = 0
    ) {
        self.state = state
        self.credit = credit
        self.counters = counters
        self.endTime = endTime
        self.failedExpectations = failedExpectations
        self.checkedExpectations = checkedExpectations
    }
}
