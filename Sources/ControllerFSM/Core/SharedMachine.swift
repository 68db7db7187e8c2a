import Synchronization

/// A `StateMachine` that any thread may send to. Dispatch is serialised: one thread at a time
/// runs events, the others leave theirs in a fixed-capacity inbox and return `.queued`; whoever
/// is dispatching runs them, in arrival order, before it lets go.
///
/// `send` never loses an event: when the inbox is full it waits for room (use it for inputs
/// whose events must not be lost — a coin is money). `trySend` refuses instead and the refusal
/// is counted. Neither allocates.
///
/// Inside an action, send with `Effects.send`, not with this class: the dispatching thread
/// already holds the dispatch lock.
public final class SharedMachine<State, Event, Context, Observer, Lock: MachineLock, Clock: MachineClock>: @unchecked Sendable
where Observer: MachineObserver<State, Event> {
    public typealias Machine = ObservedMachine<State, Event, Context, Observer>

    // Safety: `machine` is touched only with `dispatchLock` held; `inbox` and the ticket counters
    // only with `inboxLock` held. The locks already make access exclusive, so the runtime
    // exclusivity checks (`@exclusivity(unchecked)`) would only cost time on every event.
    @exclusivity(unchecked) @usableFromInline var machine: Machine
    @exclusivity(unchecked) @usableFromInline var inbox: FixedRing<InboxEntry>
    @usableFromInline var nextTicket: UInt64 = 0
    @usableFromInline var nextTicketToRun: UInt64 = 0
    @usableFromInline let dispatchLock = Lock()
    @usableFromInline let inboxLock = Lock()
    @usableFromInline let refusals = Atomic<Int>(0)
    /// `inbox.count`, readable without the inbox lock: the uncontended path checks it instead of
    /// taking that lock.
    @usableFromInline let waiting = Atomic<Int>(0)
    public let clock: Clock

    @usableFromInline
    struct InboxEntry {
        @usableFromInline var event: Event
        @usableFromInline var time: MachineInstant
        @inlinable init(event: Event, time: MachineInstant) {
            self.event = event
            self.time = time
        }
    }

    /// Room in the inbox for events sent while another thread dispatches, unless `init` is told
    /// otherwise.
    public static var defaultInboxCapacity: Int { 64 }

    /// Takes a machine that has not been started; `start()` starts it.
    public init(_ machine: Machine, clock: Clock, inboxCapacity: Int = defaultInboxCapacity) {
        precondition(!machine.isStarted, "SharedMachine takes an unstarted machine; it starts it in start()")
        self.machine = machine
        self.clock = clock
        inbox = FixedRing(capacity: inboxCapacity, filler: InboxEntry(event: Event.allCases.first!, time: .zero))
    }

    /// Enters the initial state at the clock's current time.
    public func start() {
        dispatchLock.withLock { machine.start(at: clock.now()) }
    }

    /// Sends `event`, stamped with the clock's time; waits for room if the inbox is full.
    @inlinable
    @discardableResult
    public func send(_ event: Event) -> SendOutcome {
        enqueueAndDispatch(event, at: clock.now(), waitForRoom: true)
    }

    /// Sends `event` stamped `time` (a kernel edge timestamp); waits for room if the inbox is
    /// full.
    @inlinable
    @discardableResult
    public func send(_ event: Event, at time: MachineInstant) -> SendOutcome {
        enqueueAndDispatch(event, at: time, waitForRoom: true)
    }

    /// Sends `event` unless the inbox is full, in which case it returns `.refused` and counts
    /// the refusal.
    @inlinable
    @discardableResult
    public func trySend(_ event: Event) -> SendOutcome {
        enqueueAndDispatch(event, at: clock.now(), waitForRoom: false)
    }

    /// Sends refused by `trySend` because the inbox was full.
    public var refusedCount: Int { refusals.load(ordering: .relaxed) }

    /// Expires the timers due by the clock's current time. Call it when `nextDeadline` passes
    /// (an event loop sleeps until then).
    public func fireDueTimers() {
        let now = clock.now()
        dispatchLock.withLock { machine.advance(to: now) }
        dispatchPending()
    }

    public var nextDeadline: MachineInstant? { dispatchLock.withLock { machine.nextDeadline } }
    public var state: State { dispatchLock.withLock { machine.state } }
    public var statistics: MachineStatistics { dispatchLock.withLock { machine.statistics } }
    public func can(_ event: Event) -> Bool { dispatchLock.withLock { machine.can(event) } }

    /// Runs `body` with the machine, between dispatches: to read the context consistently, or to
    /// set hooks. `body` must not send to this `SharedMachine`.
    public func withMachine<Result>(_ body: (inout Machine) -> Result) -> Result {
        dispatchLock.withLock { body(&machine) }
    }

    @inlinable
    func enqueueAndDispatch(_ event: Event, at time: MachineInstant, waitForRoom: Bool) -> SendOutcome {
        // Uncontended: nobody dispatching and nothing waiting, so running the event now keeps
        // arrival order and skips the inbox.
        if waiting.load(ordering: .sequentiallyConsistent) == 0 {
            let direct = dispatchLock.withLockIfAvailable { () -> DispatchOutcome? in
                waiting.load(ordering: .sequentiallyConsistent) == 0 ? machine.send(event, at: time) : nil
            }
            if case .some(.some(let outcome)) = direct {
                if waiting.load(ordering: .sequentiallyConsistent) != 0 { dispatchPending() }
                return .dispatched(outcome)
            }
        }
        var ticket: UInt64 = 0
        while true {
            let pushed = inboxLock.withLock {
                guard inbox.push(InboxEntry(event: event, time: time)) else { return false }
                waiting.add(1, ordering: .sequentiallyConsistent)
                ticket = nextTicket
                nextTicket &+= 1
                return true
            }
            if pushed { break }
            if !waitForRoom {
                refusals.add(1, ordering: .relaxed)
                return .refused
            }
            // Full: wait for the thread that is dispatching, then make room ourselves.
            _ = dispatchLock.withLock { runInbox(lookingFor: nil) }
        }
        return dispatchPending(lookingFor: ticket)
    }

    /// Runs the inbox unless another thread is doing so. After letting go of the dispatch lock it
    /// looks again, because a sender may have queued an event and found the lock held just
    /// before it was released.
    @inlinable
    @discardableResult
    func dispatchPending(lookingFor ticket: UInt64? = nil) -> SendOutcome {
        var outcome = SendOutcome.queued
        while let ran = dispatchLock.withLockIfAvailable({ runInbox(lookingFor: ticket) }) {
            if let found = ran { outcome = .dispatched(found) }
            if waiting.load(ordering: .sequentiallyConsistent) == 0 { break }
        }
        return outcome
    }

    /// With the dispatch lock held: dispatches every inbox entry; returns the outcome of the
    /// entry with `ticket` if this call ran it.
    @inlinable
    @discardableResult
    func runInbox(lookingFor ticket: UInt64?) -> DispatchOutcome? {
        var found: DispatchOutcome?
        while true {
            var taken: UInt64 = 0
            let entry = inboxLock.withLock { () -> InboxEntry? in
                guard let entry = inbox.pop() else { return nil }
                waiting.subtract(1, ordering: .sequentiallyConsistent)
                taken = nextTicketToRun
                nextTicketToRun &+= 1
                return entry
            }
            guard let entry else { return found }
            let outcome = machine.send(entry.event, at: entry.time)
            if taken == ticket { found = outcome }
        }
    }
}
