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

    public init(model: Model, stateCount: Int) {
        self.model = model
        configuration = SCXMLConfiguration(stateCount: stateCount)
    }

    mutating func append(log line: String) {
        if log.count < SCXMLLimits.maximumLogLines { log.append(line) } else { droppedLogLines += 1 }
    }
}

/// A send that leaves the machine's step: to the external queue, now or after a delay, or the
/// cancellation of a delayed one.
public enum SCXMLOutgoing: Sendable, Equatable {
    case send(event: DocumentEvent, delayNanoseconds: Int64, id: String?)
    case cancel(id: String)
}
