import ControllerFSM

/// Where the controller stood after one step of the controller: what a durable store records.
///
/// The controller writes one entry into its ledger ring after every step that dispatched
/// something (an edge, a command, a timer, a jam). Each entry carries the counters in full, not
/// a change: a store that finds entries missing (the ring overflowed) still gets every total
/// right from the next entry, and only loses the detail of when each count happened.
public struct LedgerEntry<App: ControllerApplication>: Hashable, Sendable {
    /// When the step happened (the edge's kernel timestamp, the command's or deadline's time).
    package var time: MachineInstant
    /// The state after the step (the first region's innermost).
    package var state: App.State
    /// After the step, bit `i` set when the state of ``ControllerApplication/stateCounts``[i]
    /// is active, in any region: what the store counts entries and exits from.
    package var countedStates: UInt64
    /// After the step, every active innermost state (one per active region; `state` alone
    /// without parallel regions): what the site reports as the whole configuration.
    package var activeStates: StateBits
    /// Every gauge after the step, in ``ControllerApplication/gauges`` order.
    package var gauges: CounterValues
    /// Every counter after the step, counted from the controller's start, in
    /// ``ControllerApplication/counterNames`` order (`ignored` last).
    package var counters: CounterValues
    /// What the step was: the input edge or command that caused it, or `nil` for a timer or a
    /// jam found by the controller itself.
    package var cause: ControllerInput<App>?

    /// - Parameters:
    ///   - countedStates: `nil` for a machine without parallel regions: read from `state` and
    ///     its superstates.
    ///   - activeStates: `nil` for a machine without parallel regions: `state` alone.
    @usableFromInline package init(
        time: MachineInstant, state: App.State, countedStates: UInt64? = nil, activeStates: StateBits? = nil, gauges: CounterValues,
        counters: CounterValues, cause: ControllerInput<App>?
    ) {
        self.time = time
        self.state = state
        self.countedStates = countedStates ?? App.stateCountBits(App.table.configuration(at: state).isActive)
        self.activeStates = activeStates ?? StateBits([state.rawValue])
        self.gauges = gauges
        self.counters = counters
        self.cause = cause
    }
}

/// An input the controller took: a debounced edge on an input line, or a direct command.
@usableFromInline
package enum ControllerInput<App: ControllerApplication>: Hashable, Sendable {
    /// A debounced edge: the line's role and the logical level it went to.
    case edge(RoleName, active: Bool)
    /// A command no input line carried (`fault`, `repair`, `emergencyOn`/`Off` from a control
    /// client, a failed relay write's `fault` is not one: the controller raises that itself).
    case command(App.Event)
    /// New settings (a reload of the application's section): never a step's cause, only the
    /// input log's, since a recording that left it out would replay other timings.
    case retime(App.Settings)
    /// A write to an output line that failed (a failed lock write also raised `fault`): no
    /// replay on a simulated chip can make it fail again, so a recording says so and the replay
    /// refuses rather than diverge in silence. Never a step's cause, only the input log's.
    case outputWriteFailed(RoleName)
    /// A scenario's action on the simulated plant (`arm stuck`): not the controller's input, but
    /// what made the plant's lines do what they did, so a recording that left it out would
    /// replay another run. Never a step's cause, only the input log's.
    case plant(App.Plant.Action)
}

/// One input the controller took, with its time: what a flight recorder writes.
public struct InputRecord<App: ControllerApplication>: Hashable, Sendable {
    package var time: MachineInstant
    package var input: ControllerInput<App>

    @usableFromInline package init(time: MachineInstant, input: ControllerInput<App>) {
        self.time = time
        self.input = input
    }
}
