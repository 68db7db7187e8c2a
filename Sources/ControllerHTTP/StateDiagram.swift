import ControllerFSM

/// A machine's states and transitions by name: what the status page draws, taken from the
/// transition table the daemon runs, so every application's page shows its own machine.
///
/// ```swift
/// let server = StatusServer(diagram: StateDiagram(MyMachine.table), metrics: metrics) { daemon.snapshot() }
/// ```
public struct StateDiagram: Sendable, Equatable {
    /// One row of the table.
    public struct Transition: Sendable, Equatable {
        public let from: String
        public let event: String
        public let guardLabel: String?
        /// `nil` for an internal transition (no exit or entry work).
        public let to: String?

        init(from: String, event: String, guardLabel: String? = nil, to: String?) {
            self.from = from
            self.event = event
            self.guardLabel = guardLabel
            self.to = to
        }

        /// Stays in its state: internal, or leaving and re-entering it.
        var staysPut: Bool { to == nil || to == from }
    }

    /// Every state, in declaration order.
    public let states: [String]
    public let initial: String
    /// Every row, in the table's order.
    public let transitions: [Transition]

    public init<State, Event, Context>(_ table: TransitionTable<State, Event, Context>) {
        self.init(
            states: State.allCases.map(\.name), initial: table.initial.name,
            transitions: table.rowInfo.map {
                Transition(from: $0.from.name, event: $0.event?.name ?? "always", guardLabel: $0.guardLabel, to: $0.target?.name)
            })
    }

    init(states: [String], initial: String, transitions: [Transition]) {
        self.states = states
        self.initial = initial
        self.transitions = transitions
    }

    /// The rows drawn as arrows: those that lead to another state.
    var moves: [Transition] { transitions.filter { !$0.staysPut } }
}
