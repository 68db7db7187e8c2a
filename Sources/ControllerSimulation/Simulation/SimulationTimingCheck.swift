import ControllerHost
extension Simulation {
    /// Refuses a board whose timings cannot be simulated faithfully: a debounce that outlasts
    /// the pulses it filters (every coin would vanish), or one too short for the simulated
    /// contact bounce (a coin would count several times). Money must not be lost or invented
    /// by the model of the inputs, so these are errors, named by key path like any other.
    ///
    /// Real boards are not held to the `[sim]` section: `turnstiled run` never uses it.
    public static func checkTimings(of board: Board<App>, file: String) throws(BoardFileError) {
        try board.validate(board.settings, file: file, simulated: true)
        let sim = board.sim
        let pulses = zip(App.inputs, sim.pulses).compactMap { input, width in width.map { (input.role, "\(input.role)_pulse", $0) } }
        for (role, key, width) in pulses {
            guard let debounce = board.inputs[role]?.debounce else { continue }
            // The active level is stable from the end of the bounce to the end of the pulse.
            let stable = width - (sim.bounceEdges > 0 ? sim.bounceWindow : .zero)
            if debounce >= stable {
                throw BoardFileError(
                    file: file, location: .keyPath("inputs.\(role).debounce"),
                    reason: "\(debounce.secondsText) s is not shorter than the time a simulated \(role) pulse "
                        + "stays active (sim.\(key) \(width.secondsText) s less sim.bounce_window "
                        + "\(sim.bounceWindow.secondsText) s of bounce): every \(role) would be lost",
                    hint: "shorten the debounce, or lengthen sim.\(key)")
            }
        }
        guard sim.bounceEdges > 0 else { return }
        for (role, line) in board.inputs.wired {
            let debounce = line.debounce
            if debounce <= sim.bounceWindow {
                throw BoardFileError(
                    file: file, location: .keyPath("inputs.\(role).debounce"),
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
    /// The simulated bounce at each edge of a pulse, zero for clean edges.
    package static func bounce(_ board: Board<App>) -> Duration { board.sim.bounceEdges > 0 ? board.sim.bounceWindow : .zero }

    /// The shortest hold of `role` the controller sees (the turnstile's `push hold`): its
    /// active level must outlast the bounce and the line's debounce, the rule every `[sim]`
    /// pulse is held to (`checkTimings`). Shorter, the input never happens.
    package static func shortestHold(of role: RoleName, on board: Board<App>) -> Duration {
        (board.inputs[role]?.debounce ?? .zero) + bounce(board) + .nanoseconds(1)
    }
}

extension Board {
    /// Reads a board file as every command that runs one reads it (`check`, `run`, a SIGHUP
    /// reload): its settings validated (``Board/validate(_:file:simulated:)``), and a simulated
    /// board (`backend = "sim"`) held to what the simulation can honour besides
    /// (``Simulation/checkTimings(of:file:)``). One reading, so a file one of them takes, the
    /// others take too.
    public static func loadRunnable(path: String) throws(BoardFileError) -> Board {
        let board = try load(path: path)
        if board.backend == .sim { try Simulation<App>.checkTimings(of: board, file: path) }
        return board
    }
}
