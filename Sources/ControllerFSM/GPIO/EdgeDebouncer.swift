/// Filters contact bounce out of raw edges, per line, the way the kernel's debounce does.
///
/// A level change is accepted once the raw line has stayed at the new level for the line's
/// debounce period; the accepted edge is stamped with the moment it was accepted (the last raw
/// change plus the period), which is when the kernel would have reported it. Bounce that
/// returns to the accepted level within the period produces nothing. A period of zero passes
/// edges straight through.
///
/// All storage is reserved at creation: feeding and polling never allocate. Feed raw events in
/// the order they were read (timestamps non-decreasing); accepted edges come out in time order
/// across all lines. Keep one debouncer per input request and mutate it in place.
///
/// ```
/// debouncer.feed(raw)                         // for each raw event read
/// let n = debouncer.poll(now: clock.now(), into: accepted)
/// // sleep until min(debouncer.nextDeadline, the next raw event)
/// ```
public struct EdgeDebouncer: Sendable {
    private struct Line: Sendable {
        var period: Int64
        /// The accepted level.
        var stable: Bool
        /// The level the last raw edge left the line at.
        var raw: Bool
        var lastChange: Int64
        /// Whether `raw` differs from `stable` and waits to be accepted.
        var pending: Bool

        var deadline: Int64 { MachineInstant.saturatingSum(lastChange, period) }
    }

    private var lines: [Line]
    /// Edges accepted while feeding, waiting for `poll`. Acceptance is discovered during
    /// `feed` when a later raw edge proves the line had been stable long enough.
    private var accepted: EdgeEventQueue
    private var nextSequence: UInt64 = 0
    private var lastFed = Int64.min

    /// - Parameters:
    ///   - periods: each line's debounce period, by line index; `.zero` for none.
    ///   - initialLevels: each line's accepted logical level at start (read it from the request
    ///     so the first edge is judged against the truth); all inactive when `nil`.
    ///   - capacity: how many accepted edges may wait between `feed` and `poll`; beyond it the
    ///     oldest are dropped and counted in ``droppedCount``. The default (16 per line, at
    ///     least 16) covers polling after each batch read from a kernel-sized event buffer.
    public init(periods: [Duration], initialLevels: [Bool]? = nil, capacity: Int? = nil) {
        precondition(!periods.isEmpty, "an EdgeDebouncer needs at least one line")
        for period in periods {
            if let problem = InputLineSettings.debounceProblem(period) { preconditionFailure(problem) }
        }
        precondition(
            initialLevels == nil || initialLevels!.count == periods.count,
            "initialLevels has \(initialLevels?.count ?? 0) entries for \(periods.count) lines")
        var lines: [Line] = []
        lines.reserveCapacity(periods.count)
        for (index, period) in periods.enumerated() {
            let level = initialLevels?[index] ?? false
            lines.append(
                Line(period: period.nanosecondCount, stable: level, raw: level, lastChange: .min, pending: false))
        }
        self.lines = lines
        accepted = EdgeEventQueue(capacity: capacity ?? max(16, 16 * periods.count))
    }

    /// A debouncer for the lines of an input request, with their debounce periods.
    public init(settings: [InputLineSettings], initialLevels: [Bool]? = nil, capacity: Int? = nil) {
        self.init(periods: settings.map(\.debounce), initialLevels: initialLevels, capacity: capacity)
    }

    /// How many lines the debouncer watches (line indices are `0..<lineCount`).
    public var lineCount: Int { lines.count }

    /// Accepted edges dropped because more than `capacity` waited between feed and poll.
    public var droppedCount: Int { accepted.droppedCount }

    /// The line's accepted logical level.
    public func level(ofLine index: Int) -> Bool { lines[index].stable }

    /// Sets the line's accepted level, forgetting any change in progress: at start, or after
    /// events were lost and the line was read again.
    public mutating func setLevel(_ active: Bool, ofLine index: Int) {
        lines[index].stable = active
        lines[index].raw = active
        lines[index].pending = false
    }

    /// Takes one raw edge.
    public mutating func feed(_ raw: EdgeEvent) {
        let index = raw.lineIndex
        precondition(index >= 0 && index < lines.count, "edge on line index \(index); the debouncer has \(lines.count) lines")
        let time = raw.timestamp.nanoseconds
        assert(time >= lastFed, "raw edges must be fed in time order")
        lastFed = max(lastFed, time)
        // Lines whose period ran out before this edge were accepted back then; record them
        // first so accepted edges stay in time order.
        acceptDue(upTo: time)

        let active = raw.kind.isActive
        if lines[index].period == 0 {
            lines[index].stable = active
            lines[index].raw = active
            lines[index].pending = false
            accepted.append(makeEvent(line: index, active: active, at: time))
            return
        }
        // A repeated edge kind still restarts the period: it means edges were lost in between,
        // so the line was not stable.
        lines[index].raw = active
        lines[index].lastChange = time
        lines[index].pending = active != lines[index].stable
    }

    /// When the next accepted edge is due: the time to poll at. In the past when edges are
    /// already waiting; `nil` when no line is changing.
    public var nextDeadline: MachineInstant? {
        if let waiting = accepted.first { return waiting.timestamp }
        guard let index = earliestPending(upTo: .max) else { return nil }
        return MachineInstant(nanoseconds: lines[index].deadline)
    }

    /// Writes the edges accepted by `now`, oldest first, into `buffer`; returns how many.
    /// Edges that do not fit stay for the next poll.
    public mutating func poll(now: MachineInstant, into buffer: UnsafeMutableBufferPointer<EdgeEvent>) -> Int {
        var written = 0
        while written < buffer.count, let event = nextAcceptedEdge(now: now) {
            buffer[written] = event
            written += 1
        }
        return written
    }

    /// The oldest edge accepted by `now`, if any; one at a time, for callers without a buffer.
    public mutating func nextAcceptedEdge(now: MachineInstant) -> EdgeEvent? {
        if let event = accepted.popFirst() { return event }
        guard let index = earliestPending(upTo: now.nanoseconds) else { return nil }
        return accept(line: index)
    }

    private mutating func acceptDue(upTo time: Int64) {
        while let index = earliestPending(upTo: time) {
            accepted.append(accept(line: index))
        }
    }

    private mutating func accept(line index: Int) -> EdgeEvent {
        lines[index].stable = lines[index].raw
        lines[index].pending = false
        return makeEvent(line: index, active: lines[index].stable, at: lines[index].deadline)
    }

    /// The pending line with the earliest deadline not after `time` (lowest index on ties).
    private func earliestPending(upTo time: Int64) -> Int? {
        var best: Int? = nil
        var bestDeadline = Int64.max
        for index in lines.indices where lines[index].pending {
            let deadline = lines[index].deadline
            if deadline <= time && (best == nil || deadline < bestDeadline) {
                best = index
                bestDeadline = deadline
            }
        }
        return best
    }

    private mutating func makeEvent(line index: Int, active: Bool, at time: Int64) -> EdgeEvent {
        defer { nextSequence &+= 1 }
        return EdgeEvent(
            lineIndex: index, kind: EdgeKind(becameActive: active),
            timestamp: MachineInstant(nanoseconds: time), sequence: nextSequence)
    }
}
