import ControllerFSM

/// How a run ended.
public enum SCXMLOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The top-level final state `pass` was entered.
    case pass
    /// Another top-level final state was entered, or nothing more could happen: the states the
    /// machine ended in (its active innermost states).
    case fail(endedIn: [String])
    /// The run could not go on as SCXML says (an internal queue overflow, eventless transitions
    /// that never settle, a run that never ends), or the document was refused.
    case error(String)

    public var description: String {
        switch self {
        case .pass: "pass"
        case .fail(let states): "fail (ended in \(states.joined(separator: ", ")))"
        case .error(let reason): "error: \(reason)"
        }
    }
}

public struct SCXMLRunReport: Sendable {
    public var outcome: SCXMLOutcome
    /// External events dispatched (sent to the session, delayed ones when due).
    public var externalEvents: Int
    /// The virtual time the run ended at.
    public var time: MachineInstant
    public var log: [String]
    /// With `SCXMLRunOptions/trace`: the start and every external event's macrostep, in order.
    public var steps: [SCXMLTraceStep] = []
    /// What the loader passed over (`SCXMLDocument/notes`).
    public var notes: [String] = []

    public init(outcome: SCXMLOutcome, externalEvents: Int, time: MachineInstant, log: [String]) {
        self.outcome = outcome
        self.externalEvents = externalEvents
        self.time = time
        self.log = log
    }
}

/// How a run goes beyond its document: events from outside, and whether to trace it.
public struct SCXMLRunOptions: Sendable {
    /// Events sent to the chart from outside, each at its time (`scxml-run --events`).
    public var events: ExternalEventScript?
    /// Whether the report keeps every macrostep (`SCXMLRunReport/steps`).
    public var trace: Bool

    public init(events: ExternalEventScript? = nil, trace: Bool = false) {
        self.events = events
        self.trace = trace
    }
}

/// One macrostep of a traced run: the start, or an external event taken with every internal
/// event it led to, until the machine settled.
public struct SCXMLTraceStep: Sendable, Equatable {
    /// What happened, in the order it happened.
    public enum Item: Sendable, Equatable {
        /// A state left (after its `<onexit>`).
        case exit(String)
        /// A transition taken: its `<transition>`'s line, the event it took (`nil`: eventless).
        case transition(line: Int, event: String?)
        /// A state entered (before its `<onentry>`).
        case entry(String)
        /// A `<log>` line.
        case log(String)
    }

    /// When it ran (virtual time from the start).
    public var time: MachineInstant
    /// The external event it took; `nil` for the start.
    public var event: String?
    public var items: [Item]
    /// The active innermost states after it, one per active region.
    public var configuration: [String]

    public init(time: MachineInstant, event: String?, items: [Item], configuration: [String]) {
        self.time = time
        self.event = event
        self.items = items
        self.configuration = configuration
    }
}

/// Runs a document's machine in virtual time, as an SCXML interpreter's outer loop: start it;
/// then, while it has not entered a top-level final state, dispatch the next event of the
/// external queue (each `machine.send` runs the internal queue to completion first), or, with
/// the queue empty, move time to the next delayed send or scripted external event and queue
/// every one due then (the delayed sends first); stop when neither is left. Sends leave the machine through its context's outbox, taken after every
/// step: no delay → the external queue; a delay → the delayed list, by its id; `<cancel>`
/// removes from that list.
public enum SCXMLDriver<Model: SCXMLDatamodel> {
    /// Runs `machine` to its end. The machine's names are bound here (`withSymbols`), so it may
    /// be called from anywhere, in no scope of the caller's.
    public static func run(_ machine: SCXMLMachine<Model>, options: SCXMLRunOptions = SCXMLRunOptions()) -> SCXMLRunReport {
        machine.withSymbols { runWithSymbols(machine, options: options) }
    }

    private static func runWithSymbols(_ machine: SCXMLMachine<Model>, options: SCXMLRunOptions) -> SCXMLRunReport {
        var running = StateMachine(table: machine.table, context: machine.context, queueCapacity: SCXMLLimits.internalQueueCapacity)
        var queues = Queues()
        for step in options.events?.steps ?? [] {
            // The script was checked against the document, and the machine built knowing its
            // names: every one is an event of the machine.
            guard let event = machine.symbols.eventNumber(named: step.event) else { continue }
            queues.script(event, at: step.time.nanosecondCount)
        }
        var steps: [SCXMLTraceStep] = []
        if options.trace { running.context.journal = [] }
        func noteStep(_ event: DocumentEvent?) {
            guard options.trace else { return }
            steps.append(SCXMLTraceStep(
                time: MachineInstant(nanoseconds: queues.now), event: event.map(machine.name(of:)),
                items: (running.context.journal ?? []).map { item(for: $0, in: machine) },
                configuration: running.activeStates.map(machine.name(of:))))
            running.context.journal?.removeAll(keepingCapacity: true)
        }
        running.start(at: .zero)
        noteStep(nil)
        queues.take(&running.context.outbox, now: 0)
        var dispatched = 0
        var report: SCXMLOutcome?
        while report == nil {
            if let problem = problem(in: running) {
                report = .error(problem)
            } else if let final = machine.finals.first(where: { running.isActive($0) }) {
                report = final.name == "pass" ? .pass : .fail(endedIn: [final.name])
            } else if let event = queues.nextExternal() {
                dispatched += 1
                if dispatched > SCXMLLimits.maximumExternalEvents {
                    report = .error("still running after \(SCXMLLimits.maximumExternalEvents) external events; the document keeps sending itself events")
                    break
                }
                running.send(DocumentEvent(number: event), at: MachineInstant(nanoseconds: queues.now))
                noteStep(DocumentEvent(number: event))
                queues.take(&running.context.outbox, now: queues.now)
            } else if !queues.advanceToNextDue() {
                report = .fail(endedIn: running.activeStates.map(\.name))
            }
        }
        var log = running.context.log
        if running.context.droppedLogLines > 0 { log.append("(\(running.context.droppedLogLines) more log lines not kept)") }
        var result = SCXMLRunReport(outcome: report!, externalEvents: dispatched, time: MachineInstant(nanoseconds: queues.now), log: log)
        result.steps = steps
        return result
    }

    private static func item(for entry: SCXMLJournalEntry, in machine: SCXMLMachine<Model>) -> SCXMLTraceStep.Item {
        switch entry {
        case .exited(let state): .exit(machine.name(of: DocumentState(number: state)))
        case .entered(let state): .entry(machine.name(of: DocumentState(number: state)))
        case .transition(let line, let event): .transition(line: line, event: event)
        case .log(let line): .log(line)
        }
    }

    /// What stops a run as an error rather than an outcome.
    /// A step that did not settle (the core ended it at a bound of `MachineLimits`, naming the
    /// cycle) comes first: it is the cause when the internal queue also overflowed.
    private static func problem(in machine: StateMachine<DocumentState, DocumentEvent, SCXMLContext<Model>>) -> String? {
        let overflowed = machine.context.internalQueueOverflowed || machine.statistics.droppedSends > 0
        let overflow = "more than \(SCXMLLimits.internalQueueCapacity) internal events were raised in one step; the internal queue overflowed"
        if machine.statistics.unsettledSteps > 0, let step = machine.lastUnsettledStep {
            return "\(step)" + (overflowed ? "; \(overflow)" : "")
        }
        return overflowed ? overflow : nil
    }

    /// The external queue and the delayed sends, in virtual time.
    struct Queues {
        private(set) var now: Int64 = 0
        /// Events by number.
        private var external: [Int] = []
        private var nextExternalIndex = 0
        /// Waiting sends: when due, in the order sent (`order` breaks ties of time).
        private var delayed: [(due: Int64, order: Int, event: Int, id: String?)] = []
        private var sent = 0

        mutating func take(_ outbox: inout [SCXMLOutgoing], now: Int64) {
            for item in outbox {
                switch item {
                case .send(let event, let delay, let id):
                    if delay == 0 {
                        external.append(event)
                    } else {
                        sent += 1
                        delayed.append((MachineInstant.saturatingSum(now, delay), sent, event, id))
                    }
                case .cancel(let id):
                    delayed.removeAll { $0.id == id }
                }
            }
            outbox.removeAll(keepingCapacity: true)
        }

        mutating func nextExternal() -> Int? {
            guard nextExternalIndex < external.count else { return nil }
            let event = external[nextExternalIndex]
            nextExternalIndex += 1
            if nextExternalIndex == external.count {
                external.removeAll(keepingCapacity: true)
                nextExternalIndex = 0
            }
            return event
        }

        /// External events from outside, each at its time, in time order; the next one at
        /// `nextScripted`.
        private var scripted: [(due: Int64, event: Int)] = []
        private var nextScripted = 0

        /// Adds an external event from outside, due at `due` (no earlier than the last one).
        mutating func script(_ event: Int, at due: Int64) {
            scripted.append((due, event))
        }

        /// Moves time to the earliest delayed send or scripted event and queues every one due
        /// then: the delayed sends in the order they were sent, then the scripted events in
        /// theirs. False when none is waiting.
        mutating func advanceToNextDue() -> Bool {
            let delayedDue = delayed.map(\.due).min()
            let scriptedDue = nextScripted < scripted.count ? scripted[nextScripted].due : nil
            guard let due = [delayedDue, scriptedDue].compactMap({ $0 }).min() else { return false }
            now = due
            if delayedDue == due {
                let ready = delayed.filter { $0.due == due }.sorted { $0.order < $1.order }
                delayed.removeAll { $0.due == due }
                external += ready.map(\.event)
            }
            while nextScripted < scripted.count && scripted[nextScripted].due == due {
                external.append(scripted[nextScripted].event)
                nextScripted += 1
            }
            return true
        }
    }
}
