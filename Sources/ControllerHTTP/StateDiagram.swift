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

    /// A superstate, drawn as a frame around the states inside it.
    public struct Superstate: Sendable, Equatable {
        public let name: String
        /// The innermost states inside it, as indices into `states`.
        public let members: [Int]
        /// Its regions are active together (drawn dashed).
        public let isParallel: Bool
    }

    /// Every state drawn as a box, in declaration order: for a nested machine the innermost
    /// states only (superstates are frames, histories are not states).
    public let states: [String]
    public let initial: String
    /// Every row, in the table's order; for a nested machine, each innermost state's rows as
    /// dispatch tries them (its own, then its superstates' until an unguarded one).
    public let transitions: [Transition]
    /// For a nested machine, outermost first; empty for a flat one.
    public let superstates: [Superstate]

    public init<State, Event, Context>(_ table: TransitionTable<State, Event, Context>) {
        guard table.isNested else {
            self.init(
                states: State.allCases.map(\.name), initial: table.initial.name,
                transitions: table.rowInfo.map {
                    Transition(from: $0.from.name, event: $0.event?.name ?? "always", guardLabel: $0.guardLabel, to: $0.target?.name)
                })
            return
        }
        self.init(nested: table)
    }

    init(states: [String], initial: String, transitions: [Transition], superstates: [Superstate] = []) {
        self.states = states
        self.initial = initial
        self.transitions = transitions
        self.superstates = superstates
    }

    /// A nested machine drawn as its innermost states, with every row that answers in each
    /// (a superstate's row is drawn from each state inside it that does not answer first), in
    /// frames for the superstates. A row into a superstate points at the state it starts in; a
    /// row into a history at its default, marked (H) or (H*).
    private init<State, Event, Context>(nested table: TransitionTable<State, Event, Context>) {
        let leaves = table.atomicStates
        func startLeaf(_ state: State) -> (State, String) {
            let history = table.historyInfo.first { $0.state == state }
            let mark = history.map { $0.isDeep ? " (H*)" : " (H)" } ?? ""
            return (table.defaultAtomicState(entering: state), mark)
        }
        var transitions: [Transition] = []
        let triggers: [Event?] = Event.allCases.map(Optional.some) + [nil]
        for leaf in leaves {
            for event in triggers {
                let candidates = event.map { table.rows(for: leaf, $0) } ?? table.eventlessRows(for: leaf)
                for row in candidates {
                    let eventName = row.event?.name ?? "always"
                    if row.targets.isEmpty {
                        transitions.append(Transition(from: leaf.name, event: eventName, guardLabel: row.guardLabel, to: nil))
                    }
                    for target in row.targets {
                        let (to, mark) = startLeaf(target)
                        transitions.append(Transition(from: leaf.name, event: eventName + mark, guardLabel: row.guardLabel, to: to.name))
                    }
                    if row.guardLabel == nil { break }  // the rows after it are never tried
                }
            }
        }
        let superstates = State.allCases.filter { table.isSuperstate($0) }.sorted { table.configuration(of: $0).count < table.configuration(of: $1).count }
        self.init(
            states: leaves.map(\.name), initial: table.startState.name, transitions: transitions,
            superstates: superstates.map { superstate in
                Superstate(
                    name: superstate.name,
                    members: leaves.indices.filter { table.configuration(of: leaves[$0]).dropFirst().contains(superstate) },
                    isParallel: table.isParallelState(superstate))
            })
    }

    /// The rows drawn as arrows: those that lead to another state.
    var moves: [Transition] { transitions.filter { !$0.staysPut } }
}
