import ControllerFSM

/// Where the turnstile stood after one step of the controller: what a durable store records.
///
/// The controller writes one entry into its ledger ring after every step that dispatched
/// something (an edge, a command, a timer, a jam). Each entry carries the counters in full, not
/// a change: a store that finds entries missing (the ring overflowed) still gets every total
/// right from the next entry, and only loses the detail of when each count happened.
public struct LedgerEntry: Hashable, Sendable {
    /// When the step happened (the edge's kernel timestamp, the command's or deadline's time).
    package var time: MachineInstant
    /// The state after the step.
    package var state: TurnstileState
    /// The credit after the step.
    package var credit: Int
    /// Every counter after the step, counted from the controller's start (`ignored` included).
    package var counters: TurnstileCounters
    /// What the step was: the input edge or command that caused it, or `nil` for a timer or a
    /// jam found by the controller itself.
    package var cause: ControllerInput?

    package init(time: MachineInstant, state: TurnstileState, credit: Int, counters: TurnstileCounters, cause: ControllerInput?) {
        self.time = time
        self.state = state
        self.credit = credit
        self.counters = counters
        self.cause = cause
    }
}

/// An input the controller took: a debounced edge on an input line, or a direct command.
package enum ControllerInput: Hashable, Sendable {
    /// A debounced edge: the line's role and the logical level it went to.
    case edge(InputRole, active: Bool)
    /// A command no input line carried (`fault`, `repair`, `emergencyOn`/`Off` from a control
    /// client, a failed relay write's `fault` is not one: the controller raises that itself).
    case command(TurnstileEvent)
    /// New `[turnstile]` timings and fail mode (a reload): never a step's cause, only the
    /// input log's, since a recording that left it out would replay other timings.
    case retime(BoardFile.TurnstileSettings)
    /// A write to an output line that failed (a failed lock write also raised `fault`): no
    /// replay on a simulated chip can make it fail again, so a recording says so and the replay
    /// refuses rather than diverge in silence. Never a step's cause, only the input log's.
    case outputWriteFailed(OutputRole)
}

/// One input the controller took, with its time: what a flight recorder writes.
public struct InputRecord: Hashable, Sendable {
    package var time: MachineInstant
    package var input: ControllerInput

    package init(time: MachineInstant, input: ControllerInput) {
        self.time = time
        self.input = input
    }
}
