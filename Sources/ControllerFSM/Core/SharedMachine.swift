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
///
/// A thread that sleeps until `nextDeadline` and then calls `fireDueTimers()` (an event loop)
/// gives the machine its wake-up (`init(_:clock:inboxCapacity:wakeUp:)`): every send from
/// another thread then rings it, so the sleeper reads the deadline again.
///
/// Memory orderings:
/// - The machine (and every record its observers write, the inbox's consuming side) is
///   touched only with the dispatch lock held: the lock's acquire and release order one
///   dispatcher after the last, whichever threads they are.
/// - An inbox entry is handed over by `InboxRing`'s release and acquire of its slot.
/// - No entry is left behind: a sender publishes its entry, then tries the lock; a holder lets
///   go of the lock, then looks for entries. Each side has a sequentially consistent fence
///   between its two steps (`dispatchPending`, `publishedAfterLettingGo`, and after a direct
///   send), so the two fences are ordered one way or the other: either the sender's try sees
///   the lock free, or the holder's look sees the entry. Without the fences both could read
///   the old value, on x86 (a store buffer) as on arm64; release and acquire do not order a
///   store before a later load.
/// - The wake-up: a send's `wakeUp` call comes after such a fence, and the sleeper fences
///   after it says it sleeps (`WakeUpDescriptor.prepareToSleep()`), before it reads the
///   deadline; `nextDeadline` runs what waits in the inbox before it reads. So either the ring
///   sees the sleeper, or the sleeper's deadline includes the send.
/// - Relaxed and safe: `refusals` (a count). The lock-free looks (`hasClaimedEntry`,
///   `hasPublishedEntry`) follow the fences above.
public final class SharedMachine<State, Event, Context, Observer, Lock: MachineLock, Clock: MachineClock>: @unchecked Sendable
where Observer: MachineObserver<State, Event> {
    public typealias Machine = ObservedMachine<State, Event, Context, Observer>

    // Safety: `machine` is touched only with `dispatchLock` held, and so is the consuming side of
    // `inbox`; its producing side is lock-free. The lock already makes access to `machine`
    // exclusive, so the runtime exclusivity checks (`@exclusivity(unchecked)`) would only cost
    // time on every event.
    @exclusivity(unchecked) @usableFromInline var machine: Machine
    @usableFromInline let inbox: InboxRing<InboxEntry>
    @usableFromInline let dispatchLock = Lock()
    @usableFromInline let refusals = Atomic<Int>(0)
    /// Rung after each send that was taken; `nil`: nobody sleeps on this machine's deadlines. A
    /// closure, not the wake-up itself: the core takes no existential, and a generic parameter
    /// would make every `SharedMachine` spell one out.
    @usableFromInline let wakeUp: (@Sendable () -> Void)?
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
    /// otherwise. A capacity is rounded up to a power of two.
    public static var defaultInboxCapacity: Int { 64 }

    /// Takes a machine that has not been started; `start()` starts it.
    public convenience init(_ machine: Machine, clock: Clock, inboxCapacity: Int = defaultInboxCapacity) {
        self.init(machine, clock: clock, inboxCapacity: inboxCapacity, ringing: nil)
    }

    /// As `init(_:clock:inboxCapacity:)`, ringing `wakeUp` after every send that is taken, so
    /// that a thread asleep until `nextDeadline` wakes and reads it again.
    public convenience init<WakeUp: MachineWakeUp>(_ machine: Machine, clock: Clock, inboxCapacity: Int = defaultInboxCapacity, wakeUp: WakeUp) {
        self.init(machine, clock: clock, inboxCapacity: inboxCapacity, ringing: { wakeUp.ring() })
    }

    init(_ machine: Machine, clock: Clock, inboxCapacity: Int, ringing wakeUp: (@Sendable () -> Void)?) {
        precondition(!machine.isStarted, "SharedMachine takes an unstarted machine; it starts it in start()")
        self.machine = machine
        self.clock = clock
        self.wakeUp = wakeUp
        inbox = InboxRing(capacity: inboxCapacity)
    }

    /// Enters the initial state at the clock's current time.
    public func start() {
        withDispatchLock { $0.start(at: clock.now()) }
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
        withDispatchLock { $0.advance(to: now) }
    }

    /// When the next timer is due. What waits in the inbox runs first: a loop reads this after
    /// it said it sleeps (`WakeUpDescriptor.prepareToSleep()`), and a send that was queued
    /// before then rang nobody, so its timer must be in this answer, not left for the holder
    /// that runs it after the loop has read (the loop would sleep past it).
    public var nextDeadline: MachineInstant? { withDispatchLock(inboxFirst: true) { $0.nextDeadline } }
    public var state: State { withDispatchLock { $0.state } }
    public var statistics: MachineStatistics { withDispatchLock { $0.statistics } }
    public func can(_ event: Event) -> Bool { withDispatchLock { $0.can(event) } }

    /// Runs `body` with the machine, between dispatches: to read the context consistently, or to
    /// set hooks. `body` must not send to this `SharedMachine`.
    public func withMachine<Result>(_ body: (inout Machine) -> Result) -> Result {
        withDispatchLock(body)
    }

    /// Runs `body` with the dispatch lock held and then, like every holder of the lock once it
    /// lets go, runs what was sent meanwhile. A sender that finds the lock taken leaves its event
    /// in the inbox for the holder to run; a holder that only read and did not look would leave
    /// it there until the next send, and a loop asleep until `nextDeadline` (which it read
    /// while the event waited) would sleep past the event and the timer it starts.
    ///
    /// `inboxFirst`: runs what waits in the inbox before `body`, so that `body` sees every send
    /// that was published before the lock was taken.
    @inlinable
    func withDispatchLock<Result>(inboxFirst: Bool = false, _ body: (inout Machine) -> Result) -> Result {
        let result = dispatchLock.withLock { () -> Result in
            if inboxFirst && inbox.hasClaimedEntry { runInbox(lookingFor: nil) }
            return body(&machine)
        }
        if publishedAfterLettingGo() { dispatchPending() }
        return result
    }

    @inlinable
    func enqueueAndDispatch(_ event: Event, at time: MachineInstant, waitForRoom: Bool) -> SendOutcome {
        // Uncontended: one compare-and-swap takes the lock. Whatever is already in the inbox
        // arrived first, so it runs first; then this event, without touching the inbox.
        // A claimed entry is enough to look: it costs two loads where a published one costs a
        // slot's, and the out-of-line calls tell published from claimed.
        let direct = dispatchLock.withLockIfAvailable { () -> DispatchOutcome in
            if inbox.hasClaimedEntry { runInbox(lookingFor: nil) }
            return machine.send(event, at: time)
        }
        guard let direct else { return enqueue(event, at: time, waitForRoom: waitForRoom) }
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if inbox.hasClaimedEntry { dispatchPending() }
        // After the fence: a sleeper that said it sleeps before this send let go of the lock is
        // seen saying so; one that says it later reads the deadline this send left.
        wakeUp?()
        return .dispatched(direct)
    }

    /// Contended: another thread is dispatching, so the event goes into the inbox, where that
    /// thread (or this one, if it lets go first) will run it. Out of line, so that the
    /// uncontended path stays small enough to inline into `send`.
    @inlinable @inline(never)
    func enqueue(_ event: Event, at time: MachineInstant, waitForRoom: Bool) -> SendOutcome {
        var ticket: Int
        while true {
            if let position = inbox.push(InboxEntry(event: event, time: time)) {
                ticket = position
                break
            }
            if !waitForRoom {
                refusals.add(1, ordering: .relaxed)
                return .refused
            }
            // Full: wait for the thread that is dispatching, then make room ourselves.
            _ = dispatchLock.withLock { runInbox(lookingFor: nil) }
        }
        let outcome = dispatchPending(lookingFor: ticket)
        // `dispatchPending` ends with a fence. Rung even when another thread will run the
        // entry: whichever thread that is, this event may move a deadline once it runs, and a
        // needless ring costs one wake-up.
        wakeUp?()
        return outcome
    }

    /// Runs the inbox unless another thread is dispatching, in which case that thread will.
    ///
    /// No entry is left behind: a sender publishes its entry, then tries the lock; a dispatcher
    /// lets go of the lock, then looks for published entries. With a full fence between the two
    /// steps on each side, at least one of them sees the other's first step: either the sender
    /// gets the lock, or the dispatcher sees the entry and takes the lock again.
    @inlinable @inline(never)
    @discardableResult
    func dispatchPending(lookingFor ticket: Int? = nil) -> SendOutcome {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        var outcome = SendOutcome.queued
        while let ran = dispatchLock.withLockIfAvailable({ runInbox(lookingFor: ticket) }) {
            if let found = ran { outcome = .dispatched(found) }
            if !publishedAfterLettingGo() { break }
        }
        return outcome
    }

    /// Whether an entry was published that the thread which just let go of the dispatch lock may
    /// not have seen.
    @inlinable
    func publishedAfterLettingGo() -> Bool {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        return inbox.hasPublishedEntry
    }

    /// With the dispatch lock held: dispatches every published inbox entry; returns the outcome
    /// of the entry at position `ticket` if this call ran it. Out of line: on the uncontended
    /// path the inbox is empty and this is never called.
    @inlinable @inline(never)
    @discardableResult
    func runInbox(lookingFor ticket: Int?) -> DispatchOutcome? {
        var found: DispatchOutcome?
        while let (entry, position) = inbox.take() {
            let outcome = machine.send(entry.event, at: entry.time)
            if position == ticket { found = outcome }
        }
        return found
    }
}
