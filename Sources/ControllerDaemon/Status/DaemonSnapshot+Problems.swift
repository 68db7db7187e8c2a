extension DaemonSnapshot {
    /// What an operator should look at, in words, gravest first; empty when all is well. The
    /// site's health message carries it, so the site page and `fleet` show each node's problems
    /// without reaching its status server. `faultStates` are the states the application calls
    /// faults (its Home Assistant hints): being in one, in any region, is a problem too.
    ///
    /// The counts of losses are since the daemon started: a loss that happened stays listed
    /// until a restart, because the operator who did not see it then should see it now.
    public func problems(faultStates: Set<String> = []) -> [String] {
        var problems: [String] = []
        if phase == "\(DaemonPhase.degraded)" { problems.append("degraded" + (degradedReason.map { ": " + $0 } ?? "")) }
        // Every active state the snapshot names: the first region's innermost, every other
        // region's, and the superstates around them all.
        for active in [state] + superstates + alsoActive where faultStates.contains(active) { problems.append("in \(active)") }
        for output in outputs {
            if let held = output.held { problems.append("\(output.name) \(held)") }
        }
        for (name, why) in heldOutputs.sorted(by: { $0.key < $1.key }) where !outputs.contains(where: { $0.name == name }) {
            problems.append("\(name) \(why)")
        }
        if let conflict = site?.conflict {
            problems.append(conflict.yielded
                ? "yielded its node id to another controller (\(conflict.host), pid \(conflict.pid)): not publishing"
                : "another controller (\(conflict.host), pid \(conflict.pid)) claimed its node id and yielded")
        }
        if let quick = site?.quickDisconnects, quick > 0 { problems.append("\(quick) quick disconnect(s) from the broker: another client with its client id?") }
        if lostEdges > 0 { problems.append("\(lostEdges) input edge(s) lost before they were read") }
        if droppedSends > 0 { problems.append("\(droppedSends) event(s) the machine's work sent were lost: its run-to-completion queue was full") }
        if droppedCommands > 0 { problems.append("\(droppedCommands) command(s) refused: the event loop's inbox was full") }
        if traceLosses > 0 { problems.append("\(traceLosses) trace record(s) lost: a ring was full") }
        return problems
    }
}
