import ControllerFSM

/// What reads the full runtime's trace ring: it takes every record (as a logger would) and keeps
/// a checksum of them, so draining is real work that cannot be optimised away.
struct TraceConsumer {
    private(set) var drained = 0
    private(set) var checksum = 0

    mutating func drain<State, Event>(_ trace: TraceRing<State, Event>) {
        var sum = checksum
        drained += trace.drain { record in
            sum = sum &* 31 &+ record.to.rawValue &+ Int(record.outcome.rawValue)
        }
        checksum = sum
    }

    /// Records lost, or fewer drained than dispatched.
    func problems<State, Event>(trace: TraceRing<State, Event>, dispatched: Int) -> [String] {
        var problems: [String] = []
        if trace.lostCount != 0 { problems.append("the trace ring lost \(trace.lostCount) records") }
        if drained != dispatched { problems.append("drained \(drained) trace records for \(dispatched) dispatched events") }
        return problems
    }
}
