import ControllerHost
import Turnstile
extension TurnstileSimulation {
    /// Refuses a board whose timings cannot be simulated faithfully: a debounce that outlasts
    /// the pulses it filters (every coin would vanish), or one too short for the simulated
    /// contact bounce (a coin would count several times). Money must not be lost or invented
    /// by the model of the inputs, so these are errors, named by key path like any other.
    ///
    /// Real boards are not held to the `[sim]` section: `turnstiled run` never uses it.
    public static func checkTimings(of board: BoardFile, file: String) throws(BoardFileError) {
        for relation in simulatedRelations { try relation.check(board, file: file) }
        let sim = board.sim
        let pulses: [(InputRole, String, Duration)] = [
            (.coin, "coin_pulse", sim.coinPulse), (.push, "push_pulse", sim.pushPulse),
            (.service, "service_pulse", sim.servicePulse),
        ]
        for (role, key, width) in pulses {
            guard let debounce = board.inputs[role.name]?.debounce else { continue }
            // The active level is stable from the end of the bounce to the end of the pulse.
            let stable = width - (sim.bounceEdges > 0 ? sim.bounceWindow : .zero)
            if debounce >= stable {
                throw BoardFileError(
                    file: file, location: .keyPath("inputs.\(role.rawValue).debounce"),
                    reason: "\(debounce.secondsText) s is not shorter than the time a simulated \(role.rawValue) pulse "
                        + "stays active (sim.\(key) \(width.secondsText) s less sim.bounce_window "
                        + "\(sim.bounceWindow.secondsText) s of bounce): every \(role.rawValue) would be lost",
                    hint: "shorten the debounce, or lengthen sim.\(key)")
            }
        }
        guard sim.bounceEdges > 0 else { return }
        for role in InputRole.allCases {
            guard let debounce = board.inputs[role.name]?.debounce else { continue }
            if debounce <= sim.bounceWindow {
                throw BoardFileError(
                    file: file, location: .keyPath("inputs.\(role.rawValue).debounce"),
                    reason: "\(debounce.secondsText) s does not outlast the simulated contact bounce "
                        + "(sim.bounce_edges \(sim.bounceEdges) within sim.bounce_window \(sim.bounceWindow.secondsText) s): "
                        + "one pulse could count several times",
                    hint: "make the debounce longer than the bounce window, or set sim.bounce_edges = 0")
            }
        }
    }

    /// The relations a simulated board is held to beyond every board's (the table is
    /// `TimingRelation`'s). The simulated push holds the push line for sim.push_pulse, its
    /// release bounces for up to sim.bounce_window, and its end is seen a debounce period later:
    /// a jam timeout within that makes every simulated passage a fault.
    static let simulatedRelations: [TurnstileRelations.Relation] = [
        TurnstileRelations.Relation(
            key: "turnstile.jam_timeout", relation: "jam_timeout > sim.push_pulse + sim.bounce_window + inputs.push.debounce",
            why: "a simulated push would last past it, and every passage would be a fault",
            value: \.turnstile.jamTimeout,
            smallest: { $0.sim.pushPulse + bounce($0) + TurnstileRelations.pushDebounce($0) + .nanoseconds(1) }),
    ]

    /// The simulated bounce at each edge of a pulse, zero for clean edges.
    static func bounce(_ board: BoardFile) -> Duration { board.sim.bounceEdges > 0 ? board.sim.bounceWindow : .zero }

    /// The shortest `push hold` the controller sees: its active level must outlast the bounce
    /// and the push line's debounce, the rule `sim.push_pulse` is held to (`checkTimings`).
    /// Shorter, the push never happens, and the credit it was meant to use expires.
    static func shortestPushHold(on board: BoardFile) -> Duration {
        TurnstileRelations.pushDebounce(board) + bounce(board) + .nanoseconds(1)
    }
}
