import ControllerFSM

/// How a machine built from a chart treats what the chart asks of the world outside it.
public struct ChartBuildOptions: Sendable {
    /// A chart controller's way: each delayed `<send>` is a timer of the runtime, named by its
    /// `id` (restarted by a send of the same id, stopped by `<cancel sendid=…>`, its expiry an
    /// event like any other), and a `<send>` with no delay is refused (`<raise>` says it). The
    /// default, for `scxml-run`: sends leave through the context's outbox, as SCXML's external
    /// queue, for the driver.
    public var delayedSendsAsTimers: Bool

    public init(delayedSendsAsTimers: Bool = false) {
        self.delayedSendsAsTimers = delayedSendsAsTimers
    }
}

/// A chart controller's timers: one slot of the runtime's per id of a delayed `<send>`.
public enum ChartTimers {
    /// How many ids a chart's delayed sends may use: the runtime's timer slots per machine.
    public static var maximumTimers: Int { ChartTimer.slotCount }

    /// One delayed `<send>` of the chart: its id, the delay it gives, where it is.
    public struct DelayedSend: Sendable, Equatable {
        public var id: String
        public var event: String
        public var delayNanoseconds: Int64
        public var line: Int
    }

    /// The chart's timers in document order, each id once (its first `<send>`), checked for a
    /// controller: every `<send>` delayed, with an `id`; the sends of one id all give one delay;
    /// every `<cancel>` names an id some `<send>` uses; at most ``maximumTimers`` ids; no `<log>`.
    public static func timers(of document: SCXMLDocument) throws(SCXMLError) -> [DelayedSend] {
        var found: [DelayedSend] = []
        var cancels: [(id: String, line: Int)] = []
        for op in allOps(of: document) {
            switch op {
            case .send(let send):
                guard send.target == .session || send.target == .internal else { continue }
                guard send.delayNanoseconds > 0 else {
                    throw SCXMLError.unsupported(
                        file: document.file, line: send.line, element: "send",
                        reason: "a chart controller's <send> is a timer and needs a delay; for an event of the chart's own now, write <raise event=\"\(send.event.shown)\"/>")
                }
                guard let id = send.id else {
                    throw SCXMLError.unsupported(
                        file: document.file, line: send.line, element: "send",
                        reason: "a chart controller's delayed <send> needs an id: the id names its timer (<cancel sendid=…> stops it, a send of the same id restarts it)")
                }
                if let earlier = found.first(where: { $0.id == id }) {
                    guard earlier.delayNanoseconds == send.delayNanoseconds else {
                        throw SCXMLError.unsupported(
                            file: document.file, line: send.line, element: "send",
                            reason: "timer \"\(id.shown)\" is given another delay at line \(earlier.line); one id is one timer, with one delay (the board's setting of it)")
                    }
                    continue
                }
                found.append(DelayedSend(id: id, event: send.event, delayNanoseconds: send.delayNanoseconds, line: send.line))
                if found.count > maximumTimers {
                    throw SCXMLError.unsupported(
                        file: document.file, line: send.line, element: "send",
                        reason: "more than \(maximumTimers) timer ids (the runtime's timer slots per machine); send several events from one id's timer, or share ids")
                }
            case .cancel(let id, let line):
                cancels.append((id, line))
            case .log(_, _, let line):
                // A controller's context has nowhere to keep its lines for ever, and building one
                // on the event path allocates: the trace, the recorder and /status show what ran.
                throw SCXMLError.unsupported(
                    file: document.file, line: line, element: "log",
                    reason: "a chart controller has no <log>: its trace, recorder and /status show each transition and state; `scxml-run --trace` shows the chart's log lines")
            default:
                continue
            }
        }
        if let stray = cancels.first(where: { cancel in !found.contains { $0.id == cancel.id } }) {
            throw SCXMLError.unsupported(
                file: document.file, line: stray.line, element: "cancel",
                reason: "sendid=\"\(stray.id.shown)\" names no delayed <send> of the chart; the known timers: \(found.map(\.id).joined(separator: ", "))")
        }
        return found
    }

    /// Timer slots by id, in document order.
    static func slots(of document: SCXMLDocument) throws(SCXMLError) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: try timers(of: document).enumerated().map { ($1.id, $0) })
    }

    /// Every op of the document, branches' content included, in document order.
    static func allOps(of document: SCXMLDocument) -> [ExecutableOp] {
        var result: [ExecutableOp] = []
        func walk(_ ops: [ExecutableOp]) {
            for op in ops {
                result.append(op)
                if case .branches(let branches) = op { for branch in branches { walk(branch.content) } }
            }
        }
        for state in document.states {
            walk(state.initialContent)
            state.onEntry.forEach(walk)
            state.onExit.forEach(walk)
            for transition in state.transitions { walk(transition.content) }
        }
        return result
    }
}

extension SCXMLDocument {
    /// Every `<assign>` of the document: its location's text and its line, in document order.
    public var assignments: [(location: String, line: Int)] {
        ChartTimers.allOps(of: self).compactMap { op in
            if case .assign(let location, _, let line) = op { return (location, line) }
            return nil
        }
    }
}
