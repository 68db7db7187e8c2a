/// A step that did not settle within ``MachineLimits``: which bound it reached, when, and the
/// dispatches that kept repeating (the cycle), so the fix can be found by name.
///
/// The machine ended the step where the bound was reached: the events still queued were
/// discarded (``discardedEvents``), the timers still due at that instant stopped, and it stays
/// in the state the last dispatch left it in, with the context as that dispatch's work left it.
/// It takes the next event as usual, so a step that never settles is reported each time it is
/// taken, never run for ever.
///
/// ```swift
/// do {
///     try machine.sendToCompletion(.again, at: now)
/// } catch {
///     cycles.append(error.cycle) // ... [a --again--> a]: a's entry raises the event re-entering a
/// }
/// ```
public struct UnsettledStep<State: MachineSymbol, Event: MachineSymbol>: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bound a step reached.
    public enum Bound: UInt8, Sendable, Equatable, CustomStringConvertible {
        /// ``MachineLimits/maximumInternalEvents``: the step's work kept raising events.
        case internalEvents = 1
        /// ``MachineLimits/maximumTimerExpiriesPerInstant``: timers kept expiring at one instant.
        case timerExpiriesAtOneInstant
        /// ``MachineLimits/maximumMicrosteps``: eventless rows kept being taken.
        case eventlessMicrosteps

        /// The bound's value.
        public var limit: Int {
            switch self {
            case .internalEvents: MachineLimits.maximumInternalEvents
            case .timerExpiriesAtOneInstant: MachineLimits.maximumTimerExpiriesPerInstant
            case .eventlessMicrosteps: MachineLimits.maximumMicrosteps
            }
        }

        public var description: String {
            switch self {
            case .internalEvents: "\(limit) events raised by one step's work (MachineLimits.maximumInternalEvents)"
            case .timerExpiriesAtOneInstant: "\(limit) timer expiries at one instant (MachineLimits.maximumTimerExpiriesPerInstant)"
            case .eventlessMicrosteps: "\(limit) eventless rows taken after one event (MachineLimits.maximumMicrosteps)"
            }
        }
    }

    /// One dispatch of the cycle: the innermost state it started in, the event (`nil` for an
    /// eventless row), and where it left the machine.
    public struct Step: Sendable, Equatable, CustomStringConvertible {
        public var from: State
        public var event: Event?
        public var to: State
        /// Whether `event` was a timer's expiry.
        public var isTimerExpiry: Bool

        public init(from: State, event: Event?, to: State, isTimerExpiry: Bool = false) {
            self.from = from
            self.event = event
            self.to = to
            self.isTimerExpiry = isTimerExpiry
        }

        public var description: String {
            let label = event.map { isTimerExpiry ? "\($0.name) (timer)" : $0.name } ?? "(eventless)"
            return "\(from.name) --\(label)--> \(to.name)"
        }
    }

    public var bound: Bound
    /// When the step was ended (the machine's time then).
    public var time: MachineInstant
    /// The dispatches that repeated, oldest first: the shortest period of the step's last
    /// dispatches, or all of them (at most ``MachineLimits/unsettledCycleWindow``) when they
    /// show none.
    public var cycle: [Step]
    /// Whether ``cycle`` is a period that repeated (rather than the last dispatches as they were).
    public var cycleRepeats: Bool
    /// Events still queued when the step was ended, discarded.
    public var discardedEvents: Int
    /// Timers still due at that instant, stopped (their expiries never arrive).
    public var stoppedTimers: Int

    public init(bound: Bound, time: MachineInstant, cycle: [Step], cycleRepeats: Bool, discardedEvents: Int = 0, stoppedTimers: Int = 0) {
        self.bound = bound
        self.time = time
        self.cycle = cycle
        self.cycleRepeats = cycleRepeats
        self.discardedEvents = discardedEvents
        self.stoppedTimers = stoppedTimers
    }

    /// The states and events the cycle goes through, each once, in the order met: what to look
    /// at in the definition.
    public var statesInCycle: [State] {
        var seen: [State] = []
        for step in cycle {
            for state in [step.from, step.to] where !seen.contains(state) { seen.append(state) }
        }
        return seen
    }

    public var eventsInCycle: [Event] {
        var seen: [Event] = []
        for step in cycle { if let event = step.event, !seen.contains(event) { seen.append(event) } }
        return seen
    }

    public var description: String {
        var text = "the machine did not settle at \(Self.secondsText(time.nanoseconds)) s: \(bound); "
        let steps = cycle.map { $0.description }.joined(separator: ", ")
        text += cycleRepeats ? "it kept repeating \(steps)" : "its last steps were \(steps)"
        var ended: [String] = []
        if discardedEvents > 0 { ended.append("\(discardedEvents) queued event\(discardedEvents == 1 ? "" : "s") discarded") }
        if stoppedTimers > 0 { ended.append("\(stoppedTimers) due timer\(stoppedTimers == 1 ? "" : "s") stopped") }
        if !ended.isEmpty { text += " (\(ended.joined(separator: ", ")))" }
        let fix = switch bound {
        case .internalEvents: "a row or an entry that raises the event that brings the machine back to it; give one a guard its own move makes false"
        case .timerExpiriesAtOneInstant: "a timer restarted with no delay by its own expiry; give it a delay, or a guard that stops it"
        case .eventlessMicrosteps: "eventless rows whose guards never all turn false"
        }
        return text + "; look for \(fix)"
    }

    /// Nanoseconds as seconds with nine decimals, in integer arithmetic (Embedded Swift prints
    /// no floating point).
    static func secondsText(_ nanoseconds: Int64) -> String {
        let magnitude = nanoseconds.magnitude
        let fraction = String(magnitude % 1_000_000_000)
        return "\(nanoseconds < 0 ? "-" : "")\(magnitude / 1_000_000_000).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)"
    }
}

/// The last dispatches of the steps being run, and the report of the last step that did not
/// settle: fixed storage reserved with the machine, written only on the out-of-line paths
/// (raised events, timer expiries, eventless rows), so the hot path of an external event pays
/// nothing and an unsettled step allocates nothing.
@usableFromInline
struct UnsettledStepRecorder {
    /// One dispatch: state indices, the event's index (-1 eventless), whether a timer's.
    @usableFromInline
    struct Note: Equatable {
        @usableFromInline var from: Int32
        @usableFromInline var event: Int32
        @usableFromInline var to: Int32
        @usableFromInline var isTimer: Bool

        @inlinable init(from: Int32, event: Int32, to: Int32, isTimer: Bool) {
            self.from = from
            self.event = event
            self.to = to
            self.isTimer = isTimer
        }
    }

    @usableFromInline var recent: ContiguousArray<Note>
    /// Where the next note goes in `recent`, and how many it holds (at most its capacity).
    @usableFromInline var next = 0
    @usableFromInline var held = 0
    /// The last unsettled step: `recent` as it was, oldest first, and what ended it.
    @usableFromInline var reported: ContiguousArray<Note>
    @usableFromInline var reportedCount = 0
    @usableFromInline var bound: UInt8 = 0
    @usableFromInline var time: Int64 = 0
    @usableFromInline var discarded = 0
    @usableFromInline var stoppedTimers = 0

    init() {
        let blank = Note(from: 0, event: -1, to: 0, isTimer: false)
        // Two buffers of their own: `reported = recent` would share one, and the first note
        // would copy it — an allocation on the event path (the daemon's loop check caught it).
        recent = ContiguousArray(repeating: blank, count: MachineLimits.unsettledCycleWindow)
        reported = ContiguousArray(repeating: blank, count: MachineLimits.unsettledCycleWindow)
    }

    @inlinable
    mutating func note(from: Int, event: Int, to: Int, isTimer: Bool = false) {
        recent[next] = Note(from: Int32(truncatingIfNeeded: from), event: Int32(truncatingIfNeeded: event), to: Int32(truncatingIfNeeded: to), isTimer: isTimer)
        next &+= 1
        if next == recent.count { next = 0 }
        if held < recent.count { held &+= 1 }
    }

    /// Forgets the notes of the steps before: a cycle is named from one step's dispatches.
    @inlinable
    mutating func beginStep() { held = 0 }

    /// Keeps the notes as the report of a step that reached `bound` at `time`.
    @inlinable
    mutating func report(_ bound: UInt8, at time: Int64, discarded: Int, stoppedTimers: Int) {
        self.bound = bound
        self.time = time
        self.discarded = discarded
        self.stoppedTimers = stoppedTimers
        reportedCount = held
        var source = next &- held
        if source < 0 { source &+= recent.count }
        for position in 0..<held {
            reported[position] = recent[source]
            source &+= 1
            if source == recent.count { source = 0 }
        }
        // The notes stay: a second bound reached in the same step (the expiries' after a raised
        // events' one at the last expiry) is named by the same dispatches.
    }

    /// The report as its public value (off the event path: it allocates).
    func unsettledStep<State: MachineSymbol, Event: MachineSymbol>(_: State.Type, _: Event.Type) -> UnsettledStep<State, Event>? {
        guard let bound = UnsettledStep<State, Event>.Bound(rawValue: self.bound) else { return nil }
        let notes = Array(reported[0..<reportedCount])
        let (period, repeats) = Self.shortestPeriod(of: notes)
        let cycle = notes.suffix(period).compactMap { note -> UnsettledStep<State, Event>.Step? in
            guard let from = State(rawValue: Int(note.from)), let to = State(rawValue: Int(note.to)) else { return nil }
            return UnsettledStep.Step(from: from, event: note.event < 0 ? nil : Event(rawValue: Int(note.event)), to: to, isTimerExpiry: note.isTimer)
        }
        return UnsettledStep(
            bound: bound, time: MachineInstant(nanoseconds: time), cycle: cycle, cycleRepeats: repeats,
            discardedEvents: discarded, stoppedTimers: stoppedTimers)
    }

    /// The shortest period `p` such that the notes repeat every `p` (seen at least twice), and
    /// whether there is one; all the notes when there is none.
    static func shortestPeriod(of notes: [Note]) -> (Int, Bool) {
        guard notes.count >= 2 else { return (notes.count, false) }
        for period in 1...(notes.count / 2) {
            if (0..<(notes.count - period)).allSatisfy({ notes[$0] == notes[$0 + period] }) { return (period, true) }
        }
        return (notes.count, false)
    }
}
