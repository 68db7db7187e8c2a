import ControllerDaemon

enum Fixtures {
    static let transitions = [
        TransitionSummary(time: 1.25, from: "locked", event: "coin", to: "unlocked"),
        TransitionSummary(time: 2.5, from: "unlocked", event: "push", to: "locked"),
    ]

    static let snapshot = DaemonSnapshot(
        phase: "running", state: "locked", gauges: ["credit": 0], counters: ["coins": 1, "passages": 1],
        uptimeSeconds: 3.5, board: "sim.toml", chip: "sim [simulated]", events: 2, queueDepth: 0,
        droppedCommands: 0, lostEdges: 0, traceLosses: 0, lastTransitions: transitions)
}
