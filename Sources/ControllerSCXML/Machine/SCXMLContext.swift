import ControllerFSM

/// The machine's context: the datamodel's values, the active states (for `In(id)`), and what
/// the executable content asked of the world outside the machine — sends to the session's
/// external queue, delayed sends and cancellations, in order — for the driver to take after
/// each step.
public struct SCXMLContext<Model: SCXMLDatamodel>: Sendable {
    public var model: Model
    public var configuration: SCXMLConfiguration
    /// Taken (and emptied) by the driver after every step.
    public var outbox: [SCXMLOutgoing] = []
    /// `<log>` lines, at most `SCXMLLimits.maximumLogLines`.
    public var log: [String] = []
    public var droppedLogLines = 0
    /// The last execution error (raised as `error.execution`), for the run's report.
    public var lastExecutionError: String?
    /// Set when the internal queue was full and an event was lost: the run is then an error.
    public var internalQueueOverflowed = false
    /// What a traced run records, in order: each state left and entered, each transition taken
    /// and each `<log>` line. `nil` (untraced) records nothing.
    public var journal: [SCXMLJournalEntry]?
    /// A chart controller's timers: the delay of each timer slot, in nanoseconds, by slot (the
    /// default each id's `<send delay>` gives, or the board's setting). Empty otherwise.
    public var timerDelays: [Int64] = []

    public init(model: Model, stateCount: Int) {
        self.model = model
        configuration = SCXMLConfiguration(stateCount: stateCount)
    }

    mutating func append(log line: String) {
        if log.count < SCXMLLimits.maximumLogLines { log.append(line) } else { droppedLogLines += 1 }
        journal?.append(.log(line))
    }
}

/// One thing a traced run did, by state number (a document's states in document order).
public enum SCXMLJournalEntry: Sendable, Equatable {
    /// A state left, after its `<onexit>`.
    case exited(Int)
    /// A transition taken (its content about to run): the document line of its `<transition>`,
    /// and the event it took (`nil` for an eventless one).
    case transition(line: Int, event: String?)
    /// A state entered, before its `<onentry>`.
    case entered(Int)
    /// A `<log>` line: its label and value, as the report keeps it.
    case log(String)
}

/// A send that leaves the machine's step: to the external queue, now or after a delay, or the
/// cancellation of a delayed one.
public enum SCXMLOutgoing: Sendable, Equatable {
    /// An event by its number, now (`delayNanoseconds` 0) or after a delay.
    case send(event: Int, delayNanoseconds: Int64, id: String?)
    case cancel(id: String)
}
