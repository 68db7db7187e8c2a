/// The names an `expect` may check, passed in by whoever runs the scenario so that the parser
/// knows nothing of the turnstile's types and a misspelt name is refused before anything runs.
public struct ScenarioVocabulary<App: ControllerApplication>: Hashable, Sendable {
    /// Names accepted by `expect state NAME`.
    public var states: Set<String>
    /// Names accepted by `expect counter NAME VALUE`.
    public var counters: Set<String>
    /// Names accepted by `expect output NAME 0|1` (typically the outputs the board wires).
    public var outputs: Set<String>

    /// The application's states and counters, and the outputs `board` wires.
    public init(for board: Board<App>) {
        // Every count `/status` shows: the counters, the state counts, and the kinds only a
        // restart books.
        self.init(states: Set(App.State.allCases.map(\.name)),
                  counters: Set(App.counterNames + App.stateCounts.map(\.kind) + App.gauges.compactMap(\.voidedByRestart)),
                  outputs: Set(board.outputs.keys.map(\.rawValue)))
    }

    public init(states: Set<String>, counters: Set<String>, outputs: Set<String>) {
        self.states = states
        self.counters = counters
        self.outputs = outputs
    }
}

extension ScenarioVocabulary {
    /// "known actions: ..." — every action a scenario line of this application may hold, as
    /// the parser's hints and `simulate --help` list them.
    public static var knownActions: String { ScenarioParser<App>.knownActions }
}
