import ControllerFSM
import Logging
import ControllerHost

#if canImport(Glibc)
import Glibc
#endif

/// swift-log lines on standard error, without timestamps: under systemd the journal stamps
/// each line and reads its priority from the `<N>` prefix (sd-daemon(3)); on a terminal the
/// prefix is left out.
public struct PlainLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let journalPrefixes: Bool
    /// Standard error, but for tests.
    private let descriptor: Int32
    /// One line at a time, whole, from any thread: shared by every handler of one factory. A
    /// lock held by each handler, not a `Guarded<Void>` made lazily as a static: an empty guarded
    /// value has no storage of its own, and ThreadSanitizer took the accesses to it for
    /// accesses to the object's header (it reported the signal service's log lines as races).
    private let output: MutexLock

    /// The handlers of one process: `LoggingSystem.bootstrap(PlainLogHandler.factory(journal:))`.
    /// - Parameter journal: prefix each line with its syslog priority (set when
    ///   `$JOURNAL_STREAM` says standard error goes to the journal).
    public static func factory(journal: Bool) -> @Sendable (String) -> PlainLogHandler {
        let output = MutexLock()
        return { label in PlainLogHandler(label: label, journal: journal, descriptor: STDERR_FILENO, output: output) }
    }

    init(label: String, journal: Bool, descriptor: Int32, output: MutexLock = MutexLock()) {
        self.label = label
        journalPrefixes = journal
        self.descriptor = descriptor
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = Self.line(level: event.level, message: event.message, metadata: metadata.merging(event.metadata ?? [:]) { $1 }, journal: journalPrefixes)
        output.withLock {
            line.withUTF8 { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Syscalls.writeFile(descriptor, UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[offset...])), fault: .logWrite, at: .descriptor(descriptor))
                    if written < 0 && Syscalls.errno == EINTR { continue }   // a signal came first: the line still goes
                    if written <= 0 { break }   // nowhere to log to (EPIPE, EBADF): drop the line, never retry
                    offset += written
                }
            }
        }
    }

    /// The line one event is written as, its newline included. One event, one line, shown at
    /// the sink (``StringProtocol/shownLine``) so no caller can forget: what a message or a
    /// metadata value quotes (a name from a file, a client's words, a broker's payload) is
    /// escaped, so a line break in it cannot start a forged line of its own nor an escape drive
    /// a terminal, and bounded, so it cannot bury the log.
    static func line(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata, journal: Bool) -> String {
        let prefix = journal ? "<\(priority(of: level))>" : (level >= .warning ? "\(level): " : "")
        return prefix + Self.message(message, metadata: metadata) + "\n"
    }

    /// The message and its metadata (but the journal's own fields, ``JournalField``), shown.
    static func message(_ message: Logger.Message, metadata: Logger.Metadata) -> String {
        var line = "\(message)".shownLine
        let shown = metadata.filter { !$0.key.hasPrefix(JournalField.prefix) }
        if !shown.isEmpty {
            line += " " + shown.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)".shownLine }.joined(separator: " ")
        }
        return line
    }

    /// syslog priorities, as sd-daemon(3) reads them.
    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

/// Lets through at most `burst` lines per `period` for one kind of message, and says how many
/// it held back when the next one passes: a chattering input cannot flood the journal.
public final class RateLimiter: Sendable {
    /// A burst of this many lines passes at once; after that one per `period / burst`.
    public let burst: Int
    public let period: Duration
    private struct State {
        var windowStart: Int64 = .min
        var passed = 0
        var suppressed = 0
    }
    private let state = Guarded(State())

    public init(burst: Int, period: Duration) {
        self.burst = burst
        self.period = period
    }

    /// Whether a line at `now` (nanoseconds, any monotonic origin) may pass; when it may, the
    /// count held back since the last one that passed.
    public func admit(at now: Int64) -> (admitted: Bool, suppressedBefore: Int) {
        state.withLock { state in
            let length = period.nanosecondCount
            if state.windowStart == .min || now - state.windowStart >= length {
                state.windowStart = now
                state.passed = 0
            }
            guard state.passed < burst else {
                state.suppressed += 1
                return (false, 0)
            }
            state.passed += 1
            defer { state.suppressed = 0 }
            return (true, state.suppressed)
        }
    }
}
