/// What an action, entry or exit block may do besides changing the context: send events (queued,
/// run after the current one completes) and start, restart or cancel timers.
///
/// It is passed `inout` to every action; its storage was reserved when the machine was built, so
/// nothing here allocates.
public struct Effects<State: MachineSymbol, Event: MachineSymbol> {
    /// The time of the event being dispatched (for a timer expiry, its deadline).
    @inlinable public var now: MachineInstant { MachineInstant(nanoseconds: currentTime) }
    /// The machine's state while this code runs: the source state in exit work and in a row's
    /// action, the target state in entry work.
    @inlinable public var state: State { currentState }

    /// The machine's one clock reading: the time of the event being dispatched, and between
    /// dispatches the latest time the machine has seen (`send` never lets it go backwards).
    @usableFromInline var currentTime: Int64 = .min
    @usableFromInline var currentState: State

    @usableFromInline var queue: FixedRing<Event>
    @usableFromInline var timers: TimerSlots<Event>
    /// One past the highest slot ever started: the slots a deadline scan has to look at.
    @usableFromInline var slotsInUse = 0
    /// The earliest deadline among armed timers, `Int64.max` when none is armed: the only timer
    /// cost on the dispatch path is comparing against it.
    @usableFromInline var nextDeadline: Int64 = .max
    @usableFromInline var droppedSends = 0

    init(initial: State, queueCapacity: Int) {
        currentState = initial
        let filler = Event.allCases.first!
        queue = FixedRing(capacity: queueCapacity, filler: filler)
        timers = TimerSlots<Event>(repeating: TimerSlot(event: filler))
    }

    /// Queues `event` to run after the current event completes (run-to-completion: never
    /// recursively). Returns `false`, and counts the loss in `MachineStatistics.droppedSends`,
    /// when the queue is full.
    @inlinable
    @discardableResult
    public mutating func send(_ event: Event) -> Bool {
        if queue.push(event) { return true }
        droppedSends += 1
        return false
    }

    /// Starts `timer` so that `event` arrives `delay` after `now`. A timer already running is
    /// restarted: its old deadline is forgotten, so the expiry it would have given never arrives.
    @inlinable
    public mutating func startTimer(_ timer: some MachineTimer, after delay: Duration, sending event: Event) {
        startTimer(timer, afterNanoseconds: delay.nanosecondCount, sending: event)
    }

    /// `startTimer(_:after:sending:)` with the delay already in nanoseconds: converting a
    /// `Duration` costs a 128-bit division, so a machine that restarts a timer on every event
    /// converts its periods once, up front.
    // Always inlined into the action: with the timer a constant, the slot's checks and address
    // fold away, and the call would cost more than what is left.
    @inlinable @inline(__always)
    public mutating func startTimer(_ timer: some MachineTimer, afterNanoseconds delay: Int64, sending event: Event) {
        let slot = timer.slot
        let deadline = MachineInstant.saturatingSum(currentTime, delay)
        let heldEarliest = timers[slot].armed && timers[slot].deadline == nextDeadline
        timers[slot] = TimerSlot(event: event, deadline: deadline)
        if slot >= slotsInUse { slotsInUse = slot &+ 1 }
        // Only a restart that moves the earliest deadline later needs the other slots looked at.
        if deadline <= nextDeadline {
            nextDeadline = deadline
        } else if heldEarliest {
            recomputeNextDeadline()
        }
    }

    /// Stops `timer`: its expiry never arrives. Cancelling a stopped timer does nothing.
    @inlinable @inline(__always)
    public mutating func cancelTimer(_ timer: some MachineTimer) {
        let slot = timer.slot
        if timers[slot].armed {
            timers[slot].armed = false
            if timers[slot].deadline == nextDeadline { recomputeNextDeadline() }
        }
    }

    /// Whether `timer` is running.
    @inlinable
    public func isRunning(_ timer: some MachineTimer) -> Bool {
        timers[timer.slot].armed
    }

    @inlinable
    mutating func recomputeNextDeadline() {
        var earliest = Int64.max
        for index in 0..<slotsInUse where timers[index].armed && timers[index].deadline < earliest {
            earliest = timers[index].deadline
        }
        nextDeadline = earliest
    }

    /// Stops every armed timer due at or before `limit`; returns how many.
    @inlinable
    mutating func stopTimers(dueBy limit: Int64) -> Int {
        var stopped = 0
        for index in 0..<slotsInUse where timers[index].armed && timers[index].deadline <= limit {
            timers[index].armed = false
            stopped &+= 1
        }
        if stopped > 0 { recomputeNextDeadline() }
        return stopped
    }

    /// Takes the earliest armed timer whose deadline is at or before `limit`, disarms it and
    /// returns its slot; `nil` when none is due.
    @inlinable
    mutating func takeDueTimer(upTo limit: Int64) -> Int? {
        if nextDeadline > limit { return nil }
        var due = -1
        var earliest = Int64.max
        for index in 0..<slotsInUse where timers[index].armed && timers[index].deadline < earliest {
            earliest = timers[index].deadline
            due = index
        }
        if due < 0 || earliest > limit { return nil }
        timers[due].armed = false
        recomputeNextDeadline()
        return due
    }
}
