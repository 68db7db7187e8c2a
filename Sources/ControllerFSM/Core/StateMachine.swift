/// A running machine: its table, its current state, the user's context, timers and the
/// run-to-completion queue, and an observer chosen at compile time (see `MachineObserver`).
///
/// `send` dispatches one event and then every event its actions sent, in order, before it
/// returns; nothing is dispatched recursively. All storage is reserved by `init`: after that,
/// dispatch does not allocate.
///
/// A machine is a value used from one thread; wrap a `StateMachine` in a `SharedMachine` to send
/// from several.
public struct ObservedMachine<State: MachineSymbol, Event: MachineSymbol, Context, Observer: MachineObserver>
where Observer.State == State, Observer.Event == Event {
    public let table: TransitionTable<State, Event, Context>
    @inlinable public var state: State { effects.currentState }
    /// The user's data: counters, the credit, handles to outputs. Actions change it.
    public var context: Context
    /// Told of every dispatch.
    public var observer: Observer
    public private(set) var isStarted = false

    @usableFromInline var effects: Effects<State, Event>
    @usableFromInline let view: TransitionTable<State, Event, Context>.DispatchView
    @usableFromInline var counts = MachineStatistics()
    /// The configuration of a machine with parallel regions (empty without them).
    @usableFromInline var regions: RegionWorkspace
    /// What each history pseudo-state remembers.
    @usableFromInline var history: HistoryMemory
    /// A step's last dispatches, and the report of the last step that did not settle.
    @usableFromInline var unsettled = UnsettledStepRecorder()

    /// Room for events actions send during one dispatch, unless `init` is told otherwise: more
    /// than any reasonable chain of follow-on events, small enough to sit in a cache line or two.
    public static var defaultQueueCapacity: Int { 16 }

    /// - Parameters:
    ///   - table: the machine's compiled transition table.
    ///   - context: the data its guards and actions read and write, as it starts.
    ///   - queueCapacity: how many events actions may send during one dispatch.
    ///   - observer: what is told of every dispatch.
    public init(
        table: TransitionTable<State, Event, Context>,
        context: Context,
        queueCapacity: Int = defaultQueueCapacity,
        observer: Observer
    ) {
        self.table = table
        view = table.dispatchView
        self.context = context
        self.observer = observer
        effects = Effects(initial: table.initial, queueCapacity: queueCapacity)
        regions = RegionWorkspace(stateCount: table.work.count, hasRegions: table.hasRegions)
        // With parallel regions a deep history may remember every state; without, one.
        history = HistoryMemory(slots: table.historyCount, width: table.hasRegions ? table.work.count : 1)
        // Until `start`, every `send` finds a timer "due" and so takes the out-of-line path,
        // which refuses it: the not-started check costs the hot path nothing.
        effects.nextDeadline = .min
    }

    /// Enters the initial state (runs its entry work) at `time`. Call it once, before `send`.
    public mutating func start(at time: MachineInstant = .zero) {
        precondition(!isStarted, "start() called twice; a machine is started once")
        isStarted = true
        effects.nextDeadline = .max
        effects.currentTime = time.nanoseconds
        if view.hasRegions { return startRegions() }
        // Every superstate around the initial state is entered first, outermost first; a
        // superstate as the initial state starts in its initial child.
        enterDown(from: -1, to: table.initial.index)
        drill(into: table.initial.index)
        if view.hasEventless { settle() }
        drainQueue()
    }

    /// What each history pseudo-state remembers, in the order they were declared: the state it
    /// would re-enter, `nil` before its superstate was ever left. Part of the machine's
    /// configuration beside `state` (an exploration tells two machines apart by it).
    /// With parallel regions a history may remember several states: here the first of them.
    public var rememberedStates: [State?] {
        (0..<table.historyCount).map { slot in history.first(slot) < 0 ? nil : State(rawValue: history.first(slot)) }
    }

    /// What each history remembers, every state of it: one state (or none) without parallel
    /// regions, one per region inside a parallel state with them. Two machines that would come
    /// back to different configurations differ here.
    public var rememberedConfigurations: [[State]] {
        (0..<table.historyCount).map { slot in (0..<history.count(slot)).compactMap { State(rawValue: history.state(slot, $0)) } }
    }

    /// Whether `state` is active: the innermost state, a superstate around it, or, with parallel
    /// regions, any state of the configuration.
    public func isActive(_ state: State) -> Bool {
        if view.hasRegions { return regions.active[state.index] }
        return table.isInside(effects.currentState.index, state.index)
    }

    /// Every state the machine is in, as one value that reads nothing allocated: what the host
    /// hands a declaration that asks about more than ``state`` (see ``ActiveConfiguration``).
    @inlinable
    public var configuration: ActiveConfiguration<State> {
        ActiveConfiguration(
            state: effects.currentState, owner: table, parent: table.parent.baseAddress!,
            active: view.hasRegions ? regions.active : [])
    }

    /// ``activeStates`` as bits (bit `rawValue`), for code that must not allocate: a status
    /// publisher on the event loop, a ledger entry.
    public var activeStateBits: StateBits {
        var bits = StateBits()
        guard view.hasRegions else {
            bits.insert(effects.currentState.index)
            return bits
        }
        for state in 0..<regions.stateCount where regions.active[state] && !hasChildren(state) { bits.insert(state) }
        return bits
    }

    /// The active innermost states, in the order of the state enum: one without parallel
    /// regions (`state`), one per active region with them.
    public var activeStates: [State] {
        guard view.hasRegions else { return [effects.currentState] }
        return (0..<table.regions.documentOrder.count).compactMap { position in
            let state = Int(table.regions.documentOrder[position])
            return regions.active[state] && !hasChildren(state) ? State(rawValue: state) : nil
        }
    }

    /// Whether the machine has entered a final state at the top: it is done, and answers no
    /// event any more.
    public var isFinished: Bool { table.isFinal(effects.currentState) && table.parent(of: effects.currentState) == nil }

    public var statistics: MachineStatistics {
        var result = counts
        result.droppedSends = effects.droppedSends
        return result
    }

    /// The last step that reached one of ``MachineLimits``' bounds and was ended there: what
    /// repeated, and what was discarded. `nil` while every step has settled; compare
    /// ``MachineStatistics/unsettledSteps`` before and after a call to tell whether that call's
    /// step was one (``sendToCompletion(_:at:)`` does, and throws it).
    public var lastUnsettledStep: UnsettledStep<State, Event>? { unsettled.unsettledStep(State.self, Event.self) }

    /// ``send(_:at:)``, throwing when the step (or a timer expiry due before it) did not settle:
    /// the machine ended it at the bound and stays where the last dispatch left it.
    @discardableResult
    public mutating func sendToCompletion(_ event: Event, at time: MachineInstant) throws(UnsettledStep<State, Event>) -> DispatchOutcome {
        let before = counts.unsettledSteps
        let outcome = send(event, at: time)
        if counts.unsettledSteps != before, let step = lastUnsettledStep { throw step }
        return outcome
    }

    /// ``advance(to:)``, throwing when a timer expiry's step did not settle.
    public mutating func advanceToCompletion(to time: MachineInstant) throws(UnsettledStep<State, Event>) {
        let before = counts.unsettledSteps
        advance(to: time)
        if counts.unsettledSteps != before, let step = lastUnsettledStep { throw step }
    }

    /// The earliest deadline of a running timer.
    public var nextDeadline: MachineInstant? {
        !isStarted || effects.nextDeadline == .max ? nil : MachineInstant(nanoseconds: effects.nextDeadline)
    }

    public func isRunning(_ timer: some MachineTimer) -> Bool { effects.isRunning(timer) }

    /// Whether `event` would be taken now: a row answers it in the current state and its guard
    /// holds. Nothing runs.
    public func can(_ event: Event) -> Bool {
        for state in activeStates {
            let key = state.index * table.columns + event.index
            for row in Int(table.rowStart[key])..<Int(table.rowStart[key + 1]) {
                if table.rows[row]._withUnsafeGuaranteedRef({ $0.condition == nil || $0.condition!(context) }) { return true }
            }
        }
        return false
    }

    /// Dispatches `event`, stamped `time` (for a GPIO edge, the kernel's timestamp), then every
    /// event its actions sent. Timers due at or before `time` expire first, at their deadlines.
    /// Returns what happened to `event` itself.
    @inlinable
    @discardableResult
    public mutating func send(_ event: Event, at time: MachineInstant) -> DispatchOutcome {
        // Events stamped earlier than the latest time seen (by another thread's clock read) are
        // handled at that time, so the trace and timers never go backwards.
        // Stored only when time moves: events at one instant (a burst of edges) skip the store.
        if time.nanoseconds > effects.currentTime { effects.currentTime = time.nanoseconds }
        if effects.nextDeadline <= effects.currentTime { fireTimers(before: event, upTo: effects.currentTime) }
        let outcome = dispatch(event)
        if !effects.queue.isEmpty { drainQueue() }
        return outcome
    }

    /// Moves time to `time`: every timer due by then expires, in deadline order, each at its
    /// deadline.
    @inlinable
    public mutating func advance(to time: MachineInstant) {
        precondition(isStarted, "advance(to:) before start(at:)")
        if time.nanoseconds > effects.currentTime { effects.currentTime = time.nanoseconds }
        if effects.nextDeadline <= effects.currentTime { fireTimers(upTo: effects.currentTime) }
    }

    // Inlinable so each machine gets them specialised for its own types, never inlined so
    // `send` stays small: left to run generically, they took the slow generic path on every
    // timer expiry and queued event, and made type metadata (a heap allocation) the first time.
    @inlinable @inline(never)
    mutating func fireTimers(before event: Event, upTo limit: Int64) {
        if !isStarted {
            fatalError("send(.\(event.name)) before start(at:): start the machine so its initial state's entry work runs")
        }
        fireTimers(upTo: limit)
    }

    @inlinable @inline(never)
    mutating func fireTimers(upTo limit: Int64) {
        var instant = Int64.min
        var expiriesAtInstant = 0
        while let slot = effects.takeDueTimer(upTo: limit) {
            // An expiry happens at its deadline, which is never later than `limit`.
            let deadline = effects.timers[slot].deadline
            if deadline != instant {
                instant = deadline
                expiriesAtInstant = 0
                unsettled.beginStep()
            }
            if expiriesAtInstant == MachineLimits.maximumTimerExpiriesPerInstant {
                // Time stands still while timers restart each other with no delay: stop every
                // one still due now (this one was disarmed when taken), and say so.
                let stopped = 1 &+ effects.stopTimers(dueBy: deadline)
                endUnsettledStep(.timerExpiriesAtOneInstant, stoppedTimers: stopped)
                continue
            }
            expiriesAtInstant &+= 1
            effects.currentTime = deadline
            let from = effects.currentState
            let event = effects.timers[slot].event
            _ = dispatch(event)
            unsettled.note(from: from.index, event: event.index, to: effects.currentState.index, isTimer: true)
            if !effects.queue.isEmpty { drainQueue(continuingStep: true) }
        }
        effects.currentTime = limit
    }

    /// Events that actions sent, at the time of the event that sent them: at most
    /// ``MachineLimits/maximumInternalEvents`` of them, after which the step is ended.
    @inlinable @inline(never)
    mutating func drainQueue(continuingStep: Bool = false) {
        if !continuingStep { unsettled.beginStep() }
        var taken = 0
        while let next = effects.queue.pop() {
            if taken == MachineLimits.maximumInternalEvents {
                endUnsettledStep(.internalEvents, discarding: 1)
                return
            }
            taken &+= 1
            let from = effects.currentState
            _ = dispatch(next)
            unsettled.note(from: from.index, event: next.index, to: effects.currentState.index)
        }
    }

    /// Ends a step that reached `bound`: the events still queued are discarded (`discarding`
    /// counts those already taken off it), the step's last dispatches kept as its report, and
    /// the step counted. Out of line and allocation-free: it runs on the event path.
    @inlinable @inline(never)
    mutating func endUnsettledStep(_ bound: UnsettledStep<State, Event>.Bound, discarding taken: Int = 0, stoppedTimers: Int = 0) {
        var discarded = taken
        while effects.queue.pop() != nil { discarded &+= 1 }
        counts.unsettledSteps &+= 1
        counts.discardedEvents &+= discarded
        unsettled.report(bound.rawValue, at: effects.currentTime, discarded: discarded, stoppedTimers: stoppedTimers)
    }

    /// One event, at `effects.currentTime`: find the first row whose guard holds, run exit,
    /// action and entry work.
    @inlinable
    mutating func dispatch(_ event: Event) -> DispatchOutcome {
        if view.hasRegions { return dispatchInRegions(event) }
        // The state lives in `effects` only, where actions read it, so a transition stores it once.
        let from = effects.currentState
        if observer.isObserving { observer.willDispatch(event, in: from) }
        let key = from.index &* view.columns &+ event.index
        var row = Int(view.rowStart[key])
        let end = Int(view.rowStart[key &+ 1])
        var outcome = DispatchOutcome.ignored
        // Rows and state work are borrowed, never copied: see `TransitionTable.Row`.
        let rows = view.rows
        let work = view.work
        while row < end {
            let taken = rows[row]._withUnsafeGuaranteedRef { candidate -> Bool in
                if candidate.condition != nil, !candidate.condition!(context) { return false }
                if let target = candidate.target {
                    if candidate.isSimple {
                        work[from.index]._withUnsafeGuaranteedRef { $0.exit?(&context, &effects) }
                        candidate.action?(&context, &effects)
                        effects.currentState = target
                        work[target.index]._withUnsafeGuaranteedRef { $0.entry?(&context, &effects) }
                    } else {
                        takeNested(candidate, from: from)
                        if view.hasEventless { settle() }
                    }
                    outcome = .transitioned
                    counts.transitions &+= 1
                } else {
                    candidate.action?(&context, &effects)
                    // A targetless row is not simple only in a machine with eventless rows,
                    // whose guards its action may have made true.
                    if !candidate.isSimple { settle() }
                    outcome = .handledInternally
                    counts.internalTransitions &+= 1
                }
                return true
            }
            if taken { break }
            row &+= 1
        }
        if outcome == .ignored { counts.ignored &+= 1 }
        if observer.isObserving {
            // The loop stopped at the row taken (past the last when none was: the record's outcome
            // says so). Stored as it is: a comparison here cost the trace six instructions.
            observer.didDispatch(DispatchRecord(
                time: MachineInstant(nanoseconds: effects.currentTime), from: from, event: event, to: effects.currentState,
                outcome: outcome, candidate: Int32(truncatingIfNeeded: row)))
        }
        return outcome
    }
}

// The nested path: superstates exited and entered, initial states drilled into, history
// remembered and restored. Out of line, so a flat machine's dispatch carries none of it.
extension ObservedMachine {
    /// Exits `row.exitCount` states from the innermost `leaf` up (recording the history of each
    /// superstate left), runs the row's action, and enters the row's path outermost first.
    @inlinable @inline(never)
    mutating func takeNested(_ row: TransitionTable<State, Event, Context>.Row, from leaf: State) {
        if row.exitCount == TransitionTable<State, Event, Context>.Row.toHistory { return takeToHistory(row, from: leaf) }
        var exiting = leaf.index
        var remaining = row.exitCount
        while remaining > 0 {
            recordHistory(leaving: exiting, innermost: leaf.index)
            view.work[exiting]._withUnsafeGuaranteedRef { $0.exit?(&context, &effects) }
            exiting = Int(table.parent[exiting])
            remaining &-= 1
        }
        row.action?(&context, &effects)
        enterPath(offset: Int(row.entryOffset), count: Int(row.entryCount))
    }

    /// A row to a history: its domain is worked out from what the history stands for now (the
    /// state it remembers, else its default), as SCXML says, so a row from inside the history's
    /// superstate leaves only what it must, and the superstate's history default runs only when
    /// the superstate itself is entered. What is entered is read again after the exits, which
    /// may have just recorded it.
    @inlinable @inline(never)
    mutating func takeToHistory(_ row: TransitionTable<State, Event, Context>.Row, from leaf: State) {
        let pseudoState = row.target!.index
        let slot = Int(table.historySlot[pseudoState])
        let before = history.first(slot)
        let standsFor = before >= 0 ? before : Int(table.historyDefault[slot])
        let domain = transitionDomain(
            source: Int(row.source), isLocal: row.isLocal, parent: { Int(table.parent[$0]) },
            isCompound: { hasChildren($0) }, holdsEveryTarget: { standsFor != $0 && table.isInside(standsFor, $0) })
        var exiting = leaf.index
        while exiting != domain {
            recordHistory(leaving: exiting, innermost: leaf.index)
            view.work[exiting]._withUnsafeGuaranteedRef { $0.exit?(&context, &effects) }
            exiting = Int(table.parent[exiting])
        }
        row.action?(&context, &effects)
        let remembered = history.first(slot)
        let target = remembered >= 0 ? remembered : Int(table.historyDefault[slot])
        enterDown(from: domain, to: target, runningDefaultOf: remembered >= 0 ? -1 : slot, after: Int(table.parent[pseudoState]))
        drill(into: target)
    }

    /// Takes eventless rows while one applies in the current state, at most
    /// ``MachineLimits/maximumMicrosteps`` of them (past that the machine stops taking them and
    /// counts it in ``MachineStatistics/microstepLimitHits``).
    @inlinable @inline(never)
    mutating func settle() {
        var steps = 0
        while true {
            let from = effects.currentState
            let key = from.index &* view.columns &+ (view.columns &- 1)
            var row = Int(view.rowStart[key])
            let end = Int(view.rowStart[key &+ 1])
            var candidate = -1
            while row < end {
                let holds = view.rows[row]._withUnsafeGuaranteedRef { $0.condition == nil || $0.condition!(context) }
                if holds {
                    candidate = row
                    break
                }
                row &+= 1
            }
            if candidate < 0 { return }
            if steps == MachineLimits.maximumMicrosteps {
                counts.microstepLimitHits &+= 1
                endUnsettledStep(.eventlessMicrosteps)
                return
            }
            steps &+= 1
            view.rows[candidate]._withUnsafeGuaranteedRef { taken in
                if taken.target == nil {
                    taken.action?(&context, &effects)
                } else {
                    takeNested(taken, from: from)
                }
                counts.eventlessSteps &+= 1
            }
            unsettled.note(from: from.index, event: -1, to: effects.currentState.index)
        }
    }

    /// Enters the states of a precomputed path, outermost first; a superstate at its end is
    /// started in its initial state. (A row to a history has no path: `takeToHistory`.)
    @inlinable
    mutating func enterPath(offset: Int, count: Int) {
        var last = -1
        for position in offset..<(offset &+ count) {
            let state = Int(table.paths[position])
            enter(state)
            last = state
        }
        if last >= 0 { drill(into: last) }
    }

    @inlinable
    mutating func enter(_ state: Int) {
        effects.currentState = State(rawValue: state)!
        view.work[state]._withUnsafeGuaranteedRef { $0.entry?(&context, &effects) }
        // A final state completes its superstate: its done event is queued after whatever the
        // entry work sent.
        let done = table.doneOnEntry[state]
        if done >= 0 { effects.send(Event(rawValue: Int(done))!) }
    }

    /// Enters the states strictly inside `top` (-1: the top) down to `target`, outermost first.
    /// The walk up from `target` repeats per level, which the depth bound keeps short, and needs
    /// no storage.
    /// With `slot` (not -1), that history's default action runs right after `superstate`'s
    /// entry work, if `superstate` is among the states entered: SCXML runs a history's default
    /// content only when its parent is itself entered.
    @inlinable
    mutating func enterDown(from top: Int, to target: Int, runningDefaultOf slot: Int = -1, after superstate: Int = -1) {
        var distance = 0
        var walker = target
        while walker != top {
            distance &+= 1
            walker = Int(table.parent[walker])
        }
        while distance > 0 {
            distance &-= 1
            var state = target
            for _ in 0..<distance { state = Int(table.parent[state]) }
            enter(state)
            if slot >= 0 && state == superstate {
                table.historyDefaults[slot]._withUnsafeGuaranteedRef { $0.action?(&context, &effects) }
            }
        }
    }

    /// While `state` is a superstate: its first initial state whose guard holds (compilation
    /// made the last one unguarded) is entered, down to that state.
    @inlinable
    mutating func drill(into state: Int) {
        var current = state
        while table.initialStart[current] != table.initialStart[current &+ 1] {
            var candidate = Int(table.initialStart[current])
            let end = Int(table.initialStart[current &+ 1])
            while candidate < end &- 1 {
                let holds = table.initials[candidate]._withUnsafeGuaranteedRef { $0.condition?(context) ?? true }
                if holds { break }
                candidate &+= 1
            }
            let (offset, count) = table.initials[candidate]._withUnsafeGuaranteedRef { initial in
                // The initial's action runs after the superstate's entry, before its states'.
                initial.action?(&context, &effects)
                return (Int(initial.entryOffset), Int(initial.entryCount))
            }
            for position in offset..<(offset &+ count) {
                let state = Int(table.paths[position])
                if table.historySlot[state] >= 0 { return restore(history: state) }
                enter(state)
            }
            current = Int(table.paths[offset &+ count &- 1])
        }
    }

    /// Enters what history `state` remembers (its default the first time), then drills in.
    @inlinable
    mutating func restore(history state: Int) {
        let slot = Int(table.historySlot[state])
        let remembered = history.first(slot)
        if remembered < 0 { table.historyDefaults[slot]._withUnsafeGuaranteedRef { $0.action?(&context, &effects) } }
        let target = remembered >= 0 ? remembered : Int(table.historyDefault[slot])
        enterDown(from: Int(table.parent[state]), to: target)
        drill(into: target)
    }

    /// Before superstate `state` is left, each history of it remembers: a shallow one the child
    /// holding the innermost active state, a deep one that state itself.
    @inlinable
    mutating func recordHistory(leaving state: Int, innermost leaf: Int) {
        let start = Int(table.recordStart[state])
        let end = Int(table.recordStart[state &+ 1])
        guard start < end else { return }
        for position in start..<end {
            let slot = Int(table.recordedSlots[position])
            var remembered = leaf
            if !table.historyIsDeep[slot] {
                while Int(table.parent[remembered]) != state { remembered = Int(table.parent[remembered]) }
            }
            history.remember(remembered, in: slot)
        }
    }
}

/// The machine most code wants: hooks and a trace that can be set while it runs.
public typealias StateMachine<State: MachineSymbol, Event: MachineSymbol, Context> =
    ObservedMachine<State, Event, Context, RuntimeObservers<State, Event>>

/// A machine with no observer: its dispatch has no observer code in it.
public typealias BareMachine<State: MachineSymbol, Event: MachineSymbol, Context> =
    ObservedMachine<State, Event, Context, Unobserved<State, Event>>

/// A machine that records every dispatch in a trace ring, and does nothing else to observe.
public typealias TracedMachine<State: MachineSymbol, Event: MachineSymbol, Context> =
    ObservedMachine<State, Event, Context, TraceObserver<State, Event>>

extension ObservedMachine where Observer == RuntimeObservers<State, Event> {
    /// - Parameters:
    ///   - table: the machine's compiled transition table.
    ///   - context: the data its guards and actions read and write, as it starts.
    ///   - queueCapacity: how many events actions may send during one dispatch.
    ///   - trace: a ring to record every dispatch in.
    public init(
        table: TransitionTable<State, Event, Context>,
        context: Context,
        queueCapacity: Int = defaultQueueCapacity,
        trace: TraceRing<State, Event>? = nil
    ) {
        self.init(table: table, context: context, queueCapacity: queueCapacity, observer: RuntimeObservers(trace: trace))
    }

    /// Code called around every dispatch, on the dispatching thread.
    public var hooks: MachineHooks<State, Event> {
        get { observer.hooks }
        set { observer.hooks = newValue }
    }

    /// Where every dispatch is recorded, if anywhere.
    public var trace: TraceRing<State, Event>? { observer.trace }
}

extension ObservedMachine where Observer == Unobserved<State, Event> {
    /// A machine with no observer.
    public init(table: TransitionTable<State, Event, Context>, context: Context, queueCapacity: Int = defaultQueueCapacity) {
        self.init(table: table, context: context, queueCapacity: queueCapacity, observer: Unobserved())
    }
}

extension ObservedMachine where Observer == TraceObserver<State, Event> {
    /// A machine that records every dispatch in `trace`.
    public init(table: TransitionTable<State, Event, Context>, context: Context, queueCapacity: Int = defaultQueueCapacity, trace: TraceRing<State, Event>) {
        self.init(table: table, context: context, queueCapacity: queueCapacity, observer: TraceObserver(trace))
    }
}
