import ControllerFSM

/// The chip-independent part of a ``Controller``: the application's machine, its inputs'
/// debouncing and deadlines, its outputs' levels, and the event path between an edge and the
/// output writes it causes. A ``Controller`` is one of these on a chip; nothing else is.
///
/// Generic over the application alone, so that the event path (``process(now:)``) can run as
/// code specialized for the application: ``ControllerApplication/runEventPath(of:now:)`` is
/// a requirement with an inlinable default, so its witness, compiled in the application's own
/// module, is the path with every declaration, closure and symbol of the application's types
/// known. Unspecialized, each of them went through generic metadata and witness tables: from
/// the edge read to the output write took about 20 times the instructions (docs/performance.md,
/// "Edge to output through the kernel"). The chip's two calls on the path (the edges' read,
/// the outputs' writes) go to the chip's requests as existentials (`edgeReader`,
/// `lineWriter`), straight through their witness tables.
///
/// Everything the path touches — the raw edge buffer, the debouncer, the machine, the output
/// levels, the deadlines — is reserved at creation, so `process(now:)` does not allocate.
///
/// Single-threaded: one event loop calls `start`, then `process(now:)` whenever an input is
/// readable or `nextDeadline` passes, and `stop` at the end.
///
/// The path's mutable state is `@exclusivity(unchecked)`: the controller is touched by one
/// thread only (above), and no access on the path overlaps another to the same property (the
/// application's closures get the machine's context, never the controller), so the runtime's
/// dynamic exclusivity check, a call in and out of the runtime on every access of a class's
/// property, would only ever pass.
public class ControllerCore<App: ControllerApplication> {
    public typealias Trace = TraceRing<App.State, App.Event>
    public typealias OutputLog = RecordRing<OutputWrite>
    public typealias Ledger = RecordRing<LedgerEntry<App>>
    public typealias InputLog = RecordRing<InputRecord<App>>
    public typealias Machine = StateMachine<App.State, App.Event, App.Context>

    final let board: Board<App>
    @usableFromInline final let trace: Trace?
    /// Every output write that succeeded after the request (the initial levels are
    /// ``output(_:)``'s answers before ``start(at:)``).
    @usableFromInline final let outputLog: OutputLog?
    /// Where the controller stood after every step: what a durable store drains.
    @usableFromInline final let ledger: Ledger?
    /// Every debounced edge and command taken: what a flight recorder drains.
    @usableFromInline final let inputLog: InputLog?
    @usableFromInline final let completionClock: (any MachineClock)?
    /// Told, at the end of every call that may write the trace or the output log, how far they
    /// hold whole steps; for a reporter that drains them from another thread.
    @usableFromInline @exclusivity(unchecked) package final var reportWatermark: ReportWatermark?
    /// The records of every ring (trace, outputs, ledger, input log) at the last publication,
    /// summed: each count only grows, so the sum changes exactly when one of them did.
    @usableFromInline @exclusivity(unchecked) final var publishedRecords = -1

    @usableFromInline @exclusivity(unchecked) final var machine: Machine
    final let inputSettings: [InputLineSettings]
    final let outputSettings: [OutputLineSettings]
    /// How edges, commands and held lines become events.
    @usableFromInline @exclusivity(unchecked) final var inputs: InputBindings<App>
    /// What the outputs stand at and why.
    @usableFromInline @exclusivity(unchecked) final var outputs: OutputDriver<App>
    /// The ``Controller``'s input and output requests, as the path calls them. Existentials, not
    /// calls into the ``Controller`` (whose code is generic over the chip, and looked the chip's
    /// request types up in the runtime on every call): the path, compiled for the application,
    /// calls the request's own method through its witness table.
    @usableFromInline @exclusivity(unchecked) final var edgeReader: any GPIOInputRequest
    @usableFromInline @exclusivity(unchecked) final var lineWriter: any GPIOOutputRequest
    @usableFromInline final let rawEdges: UnsafeMutableBufferPointer<EdgeEvent>
    /// Edges taken from the chip per read; `process(now:)` reads again while more wait, so this
    /// sets only how many reads a burst takes. The libgpiod backend's own batch
    /// (`CGPIOD_EVENTS_PER_READ`).
    static var edgeReadBatch: Int { 64 }

    /// The settings in force: the board's, or the last ones ``retime(_:at:)`` took.
    package internal(set) final var settings: App.Settings
    /// Ignored dispatches of level events that keep the context: handled, not ignored.
    @usableFromInline @exclusivity(unchecked) final var uncountedIgnored = 0
    @usableFromInline @exclusivity(unchecked) final var recoveringFromWriteFailure = false
    /// Set when a write found the chip gone: nothing can be controlled any more, and the next
    /// `process(now:)` says so.
    @usableFromInline @exclusivity(unchecked) final var chipLost: GPIOError?
    /// The input being handled, for the ledger entry its step makes; `nil` while a timer or a
    /// held-too-long deadline runs.
    @usableFromInline @exclusivity(unchecked) final var cause: ControllerInput<App>?

    /// Output writes that failed (each failed write with a declared failure event also sent it).
    package final var outputWriteFailures: Int { outputs.writeFailures }
    /// Episodes in which an output stood at a level other than the one the machine asked for
    /// (an interlock held it, its write failed, or the stop level took it): each counted once,
    /// when it begins. The host never overrides the machine in silence: the daemon logs each
    /// episode and shows the count in `/status` and `/metrics`; the simulator prints it.
    public final var outputOverrides: Int { outputs.overrideEpisodes }
    /// Edges the backend lost before they were read (gaps in the events' sequence numbers).
    package final var lostEdges: Int { inputs.lostEdges }
    /// Steps of the machine that reached a bound of `MachineLimits` and were ended there
    /// (`ObservedMachine.lastUnsettledStep`). The first one puts the controller in its fail
    /// safe: every wired output at its stop level (its safe initial level when it declares
    /// none), held there whatever the machine asks from then on; a machine that did not settle
    /// once has a defect in its definition, which no later event can be trusted to undo.
    @usableFromInline @exclusivity(unchecked) package internal(set) final var unsettledSteps = 0
    /// What the last unsettled step repeated, in the core's words (`UnsettledStep`), and
    /// that the outputs are held.
    package internal(set) final var unsettledReport: String?
    /// Set by the first unsettled step: the outputs stay at their fail-safe levels.
    @usableFromInline @exclusivity(unchecked) package internal(set) final var holdsFailSafe = false

    /// Each of ``ControllerApplication/stateCounts`` (by index): the steps into or out of its
    /// state since start, counted as the store counts them, from the state before and after each
    /// step — so a scenario can `expect counter emergencyOn 1` as `/status` shows it.
    @usableFromInline @exclusivity(unchecked) package internal(set) final var stateCountValues: [Int]
    /// The state the last step ended in.
    @usableFromInline @exclusivity(unchecked) final var stateBeforeStep: App.State
    /// Whether each state count's state was active after the last step (bit by index); before
    /// the first, in the configuration the machine starts in by default, as the store counts.
    @usableFromInline @exclusivity(unchecked) final var stateCountBits: UInt64

    /// Everything but the chip's requests, which the ``Controller`` makes first.
    /// - Parameters:
    ///   - inputRoles: the declaration index of each line of the input request.
    ///   - outputSlots: the request index of each declared output, -1 when not wired.
    ///   - edgeReader: the input request.
    ///   - lineWriter: the output request.
    init(
        board: Board<App>, trace: Trace?, outputLog: OutputLog?, ledger: Ledger?, inputLog: InputLog?,
        completionClock: (any MachineClock)?, inputRoles: [Int], inputSettings: [InputLineSettings],
        outputSlots: [Int], outputSettings: [OutputLineSettings], edgeReader: any GPIOInputRequest, lineWriter: any GPIOOutputRequest
    ) {
        self.edgeReader = edgeReader
        self.lineWriter = lineWriter
        let settled = edgeReader.edgesAreDebounced
        self.board = board
        self.trace = trace
        self.outputLog = outputLog
        self.ledger = ledger
        self.inputLog = inputLog
        self.completionClock = completionClock
        settings = board.settings
        machine = StateMachine(table: App.table, context: App.makeContext(board.settings), queueCapacity: App.queueCapacity, trace: trace)
        inputs = InputBindings(settings: board.settings, roles: inputRoles, periods: inputSettings.map(\.debounce), settled: settled)
        outputs = OutputDriver(settings: board.settings, slots: outputSlots, initialLevels: outputSettings.map(\.initialValue))
        stateCountValues = App.stateCounts.map { _ in 0 }
        stateBeforeStep = App.table.startState
        stateCountBits = App.startStateCountBits
        self.inputSettings = inputSettings
        self.outputSettings = outputSettings
        rawEdges = .allocate(capacity: Self.edgeReadBatch)
    }

    deinit {
        rawEdges.deallocate()
    }

    /// Gives the lines back: outputs first, so that nothing taken after the stop levels could
    /// move them. A released output is no longer driven and falls to its pull.
    package final func releaseLines() {
        lineWriter.release()
        edgeReader.release()
    }

    /// A descriptor that polls readable when input edges wait (`nil` on the simulator): what
    /// an event loop waits on, with ``nextDeadline`` as its timeout.
    package final var pollDescriptor: Int32? { edgeReader.pollDescriptor }

    // MARK: Running

    /// Reads every input's level and starts the machine in its initial state. Levels kept in the
    /// context are written there first; a condition found active (a controller started during
    /// a fire alarm) is taken at once, before any output is written, so the outputs go from
    /// their safe initial levels straight to the condition's; a held line starts its
    /// held-too-long clock.
    public final func start(at now: MachineInstant) throws(GPIOError) {
        defer { publishSettled() }
        var conditionsOn: [App.Event] = []
        for line in 0..<inputs.roles.count {
            let active = try edgeReader.readValue(at: line)
            if let on = inputs.start(line: line, active: active, context: &machine.context, at: now.nanoseconds) {
                conditionsOn.append(on)
            }
        }
        machine.start(at: now)
        for event in conditionsOn { machine.send(event, at: now) }
        settle(at: now.nanoseconds)
    }

    /// Handles everything that happened up to `now`: pending edges (debounced, in time order),
    /// the machine's timers, held-too-long inputs and the end of output pulses, each at its
    /// own time. Runs ``ControllerApplication/runEventPath(of:now:)``: the path specialized for
    /// the application.
    public final func process(now: MachineInstant) throws(GPIOError) {
        try App.runEventPath(of: self, now: now)
    }

    /// ``process(now:)``'s work: inlined into the application's
    /// ``ControllerApplication/runEventPath(of:now:)``, and specialized there.
    @inlinable
    final func takeEventsAndDeadlines(upTo now: MachineInstant) throws(GPIOError) {
        defer { publishSettled() }
        if let chipLost { throw chipLost }
        // Read at once, not after asking whether edges wait: a read never blocks and answers 0
        // when none do (`GPIOInputRequest`), and on libgpiod the question was a poll(2) of its
        // own in front of every edge's read.
        while true {
            let count = try edgeReader.readEdgeEvents(into: rawEdges)
            for index in 0..<count { inputs.feed(rawEdges[index]) }
            if count < rawEdges.count { break }
        }
        while let edge = inputs.nextAcceptedEdge(now: now) {
            runDeadlines(upTo: edge.timestamp.nanoseconds)
            handle(edge)
        }
        runDeadlines(upTo: now.nanoseconds)
    }

    /// Sends a direct command (one of the application's ``ControllerApplication/commands``).
    ///
    /// Everything that happened up to `now` is handled first — edges already on the chip
    /// included — so a command never leaves an edge unread: the edge's debounce deadline is
    /// known again when the command returns, whatever order same-time inputs came in.
    ///
    /// A command that is a condition input's on or off event is that condition's second source
    /// beside the line (see `ConditionSources`): it can declare the condition, never end one
    /// the line still signals.
    @discardableResult
    public final func send(_ event: App.Event, at now: MachineInstant) throws(GPIOError) -> CommandOutcome {
        defer { publishSettled() }
        try process(now: now)
        take(.command(event), at: now.nanoseconds)
        defer { cause = nil }
        let outcome = inputs.command(event)
        if outcome == .dispatched { dispatch(event, at: now.nanoseconds) }
        return outcome
    }

    /// When `process(now:)` next has something to do without a new edge: a debounce period
    /// ending, a timer, a held-too-long deadline, the end of an output pulse.
    public final var nextDeadline: MachineInstant? {
        let earliest = Swift.min(machine.nextDeadline?.nanoseconds ?? .max, inputs.nextDeadline, outputs.nextPulseEnd)
        return earliest == .max ? nil : MachineInstant(nanoseconds: earliest)
    }

    /// Drives every output that declares a stop level to it (from the settings in force) and
    /// gives the lines back.
    package final func stop(at now: MachineInstant) {
        driveStopLevels(at: now)
        releaseLines()
    }

    /// Drives every output that declares a stop level to it; the controller takes no more
    /// events after this (call ``releaseLines()`` next).
    package final func driveStopLevels(at now: MachineInstant) {
        defer { publishSettled() }
        driveHostLevels(failSafe: false, at: now)
    }

    /// Writes the host's own levels (stop levels, or the fail safe's), not the machine's: each
    /// logged when it succeeds, counted when it fails, with no failure event (the machine is
    /// not being followed); then every output left away from the machine's level is noted.
    final func driveHostLevels(failSafe: Bool, at now: MachineInstant) {
        for index in 0..<App.outputs.count {
            guard let (slot, level) = outputs.hostLevel(index, failSafe: failSafe, settings: settings) else { continue }
            do {
                try lineWriter.write(level, at: slot)
                outputs.held(slot: slot, at: level, succeeded: true)
                outputLog?.record(OutputWrite(time: now, role: App.outputs[index].role, value: level, completed: nil))
            } catch {
                outputs.held(slot: slot, at: level, succeeded: false)
            }
        }
        noteHostOverrides()
    }

    /// Every wired output left at a level other than the machine's is held by its stop level
    /// (or its failed write).
    @usableFromInline
    final func noteHostOverrides() {
        for index in 0..<App.outputs.count {
            let wanted = wantedLevel(index)
            outputs.noteHostOverride(index, wanted: wanted)
        }
    }

    /// Why the host holds `role`'s output at a level other than the one the machine asks for
    /// now; ``OutputOverride/none`` when it drives what the machine asks (or the board does not
    /// wire the role).
    public final func override(of role: RoleName) -> OutputOverride {
        App.outputIndex(named: role).map { outputs.overrideReasons[$0] } ?? .none
    }

    /// The declared outputs (bit `index` of ``ControllerApplication/outputs``) the host holds at
    /// a level other than the machine's now: what `/status` publishes without allocating.
    public final var overriddenOutputs: UInt64 { outputs.overriddenMask }

    /// The condition inputs whose line holds their condition now (bit `index` of
    /// ``ControllerApplication/inputs``): a command can declare such a condition, never end it.
    public final var conditionsHeldByLine: UInt64 { inputs.conditionsHeldByLine }

    /// The level and condition inputs that are on now (bit `index` of
    /// ``ControllerApplication/inputs``, for the first 64): a level input while its line's
    /// debounced level is active, a condition while its line or a command holds it (a pulse
    /// is never on). What `/status` and the site's `inputs` message report, read without
    /// allocating.
    public final var inputsOn: UInt64 { inputs.inputsOn }

    /// The value of any count `/status` shows by `name`: a counter, a state count, or a kind only
    /// a restart books (0 within one run); nil for a name the application does not count.
    package final func count(named name: String) -> Int? {
        if let index = App.counterNames.firstIndex(of: name) { return counterValues[index] }
        if let index = App.stateCounts.firstIndex(where: { $0.kind == name }) { return stateCountValues[index] }
        if App.gauges.contains(where: { $0.voidedByRestart == name }) { return 0 }
        return nil
    }

    /// Why each declared output is overridden now, two bits per output (its
    /// ``OutputOverride`` raw value at bit `2 × index`), for the first 32 outputs: what the event
    /// loop publishes to `/status` without allocating.
    public final var overrideCodes: UInt64 { outputs.overrideCodes }

    /// The logical level last written to each declared output (bit `index`, for the first 64),
    /// and which of them the board wires (``wiredOutputs``): what the event loop publishes to
    /// `/status` without allocating.
    public final var outputLevels: UInt64 { outputs.levelMask }

    public final var wiredOutputs: UInt64 { outputs.wiredMask }

    /// Takes new settings (a reloaded board file's section) at `now`. A timer already running
    /// keeps its deadline; the next one started uses the new period. Handle everything up to
    /// `now` first (`process(now:)`), as a command does: what came before the change is taken
    /// with the old settings. The change goes to the input log: it changes behaviour, so a
    /// recording must hold it.
    package final func retime(_ settings: App.Settings, at now: MachineInstant) {
        // Published like a step, though none was made: the input log's drainer sleeps until a
        // publication wakes it.
        defer { publishSettled() }
        inputLog?.record(InputRecord(time: now, input: .retime(settings)))
        self.settings = settings
        App.apply(settings, to: &machine.context)
        inputs.retime(settings)
        outputs.retime(settings)
    }

    /// The machine's state now.
    public final var state: App.State { machine.state }

    /// Whether `state` is active: the innermost state or a superstate around it, or, with
    /// parallel regions, a state of any region.
    public final func isActive(_ state: App.State) -> Bool { machine.isActive(state) }

    /// Every state the machine is in, of every region: what declarations over the configuration
    /// read (see `ActiveConfiguration`).
    public final var configuration: ActiveConfiguration<App.State> { machine.configuration }

    /// The active innermost states: `state` alone without parallel regions, one per active
    /// region with them, in document order.
    public final var activeStates: [App.State] { machine.activeStates }

    /// Every active innermost state as bits (`ObservedMachine/activeStateBits`): with parallel
    /// regions, one per region.
    public final var activeStateBits: StateBits { machine.activeStateBits }
    /// The machine's context now (what ``ControllerApplication/invariants`` read).
    public final var context: App.Context { machine.context }
    package final var statistics: MachineStatistics { machine.statistics }

    /// Events the table did not answer (level events that keep the context excepted).
    @inlinable package final var ignoredCount: Int { machine.statistics.ignored - uncountedIgnored }

    /// Every counter, in ``ControllerApplication/counterNames`` order (`ignored` last).
    @inlinable package final var counterValues: CounterValues {
        var values = CounterValues(count: App.counters.count + 1)
        let counters = App.counters
        for index in 0..<counters.count { values[index] = counters[index].value(machine.context) }
        values[App.counters.count] = ignoredCount
        return values
    }

    /// Every gauge, in ``ControllerApplication/gauges`` order.
    @inlinable package final var gaugeValues: CounterValues {
        var values = CounterValues(count: App.gauges.count)
        let gauges = App.gauges
        for index in 0..<gauges.count { values[index] = gauges[index].value(machine.context) }
        return values
    }

    /// The logical level last written to `role`'s line; `nil` when the board does not wire it.
    package final func output(_ role: RoleName) -> Bool? {
        App.outputIndex(named: role).flatMap { outputs.level(of: $0) }
    }

    /// Sets hooks on the machine (e.g. to watch passages in a simulation).
    package final func setHooks(_ hooks: MachineHooks<App.State, App.Event>) {
        machine.hooks = hooks
    }

    /// Notes, for the flight recorder, a scenario's action on the simulated plant at `now`
    /// (whoever drives the plant calls it, on the controller's thread).
    package final func notePlantAction(_ action: App.Plant.Action, at now: MachineInstant) {
        defer { publishSettled() }
        inputLog?.record(InputRecord(time: now, input: .plant(action)))
    }

    // MARK: The event path
    //
    // Inlinable, so that the application's `runEventPath(of:now:)` compiles it for its own
    // types; unspecialized where anything else calls it (start, commands, stop), where it runs
    // as before. The declaration's arrays are walked by index, never with `for … in` or
    // `enumerated()`: unspecialized, an iterator over an array of a generic element reads each
    // element through a coroutine whose frame is allocated. What runs only when something went
    // wrong (a failed write, an unsettled step) is not inlined: it stays out of the path's code.

    @inlinable
    final func publishSettled() {
        guard let reportWatermark else { return }
        let trace = trace?.recordedCount ?? 0, outputs = outputLog?.recordedCount ?? 0
        let records = trace &+ outputs &+ (ledger?.recordedCount ?? 0) &+ (inputLog?.recordedCount ?? 0)
        // Nothing recorded since the last publication (a turn for a deadline that changed
        // nothing, the watchdog's): the drainers asleep are left asleep.
        guard records != publishedRecords else { return }
        publishedRecords = records
        reportWatermark.publish(trace: trace, outputs: outputs)
    }

    @inlinable
    final func handle(_ edge: EdgeEvent) {
        let time = edge.timestamp.nanoseconds
        let role = inputs.roles[edge.lineIndex]
        take(.edge(App.inputs[role].role, active: edge.kind.isActive), at: time)
        defer { cause = nil }
        // The binding read once: what the edge sends is its event.
        let binding = App.inputs[role].binding
        if let send = inputs.send(for: edge, role: role, binding: binding, context: &machine.context) {
            dispatch(binding.event(on: send.on), at: time, countIfIgnored: send.countIfIgnored)
        }
    }

    /// Whatever falls due by `limit`, earliest first: held-too-long inputs, the machine's
    /// timers, the end of output pulses.
    @inlinable
    final func runDeadlines(upTo limit: Int64) {
        while true {
            let timer = machine.nextDeadline?.nanoseconds ?? .max
            let held = inputs.nextHeldDeadline
            let pulseEnd = outputs.nextPulseEnd
            let due = Swift.min(held.time, timer, pulseEnd)
            if due > limit { return }
            if due == held.time, let stuck = inputs.heldPastLimit(held.role) {
                dispatch(stuck, at: due)
            } else if due == timer {
                machine.advance(to: MachineInstant(nanoseconds: due))
                settle(at: due)
            } else {
                applyOutputs(at: due)
            }
        }
    }

    /// Notes an input for the flight recorder and as the cause of the step it makes.
    @inlinable
    final func take(_ input: ControllerInput<App>, at time: Int64) {
        cause = input
        inputLog?.record(InputRecord(time: MachineInstant(nanoseconds: time), input: input))
    }

    // Always inlined: the one call per edge into the machine, whose setup the inliner left
    // out of `handle` once the bindings' event came to it as a value (36 instructions an edge).
    @inlinable @inline(__always)
    final func dispatch(_ event: App.Event, at time: Int64, countIfIgnored: Bool = true) {
        let outcome = machine.send(event, at: MachineInstant(nanoseconds: time))
        if !countIfIgnored && outcome == .ignored { uncountedIgnored += 1 }
        settle(at: time)
    }

    /// After the machine moved: drive the outputs, and if it settled where a sensor still held
    /// too long must not let it stay, raise that sensor's event again. The outputs come first:
    /// the relay changes before the step's bookkeeping (its state counts and ledger entry),
    /// which nothing outside reads until the call publishes.
    @inlinable
    final func settle(at time: Int64) {
        noteUnsettledSteps(at: time)
        applyOutputs(at: time)
        for role in 0..<inputs.heldTooLong.count {
            guard let event = inputs.stillHeldTooLong(role, where: { $0(in: machine) }) else { continue }
            machine.send(event, at: MachineInstant(nanoseconds: time))
            noteUnsettledSteps(at: time)
            applyOutputs(at: time)
        }
        countStateChange()
        ledger?.record(LedgerEntry(
            time: MachineInstant(nanoseconds: time), state: machine.state, countedStates: stateCountBits, activeStates: machine.activeStateBits,
            gauges: gaugeValues,
            counters: counterValues, cause: cause))
    }

    @inlinable
    final func countStateChange() {
        let after = machine.state
        // Without parallel regions the innermost state is the whole configuration: unchanged,
        // no state was entered or left. With them another region may have moved.
        guard after != stateBeforeStep || machine.table.hasParallelRegions else { return }
        stateBeforeStep = after
        let bits = App.stateCountBits { machine.isActive($0) }
        App.forEachStateCount(from: stateCountBits, to: bits) { stateCountValues[$0] += 1 }
        stateCountBits = bits
    }

    /// After a step: when the machine reached a bound of `MachineLimits` in it, the step's
    /// report is kept and, the first time, the outputs go to their fail-safe levels. Costs one
    /// comparison when nothing happened; what it does otherwise allocates (the report's text),
    /// once per unsettled step.
    @inlinable
    final func noteUnsettledSteps(at time: Int64) {
        let count = machine.statistics.unsettledSteps
        guard count != unsettledSteps else { return }
        takeUnsettledSteps(count, at: time)
    }

    @usableFromInline
    final func takeUnsettledSteps(_ count: Int, at time: Int64) {
        unsettledSteps = count
        let step = machine.lastUnsettledStep.map { "\($0)" } ?? "the machine did not settle"
        unsettledReport = "\(step); every output is held at its stop level (or its safe initial level) until the \(App.daemonName) is restarted"
        if !holdsFailSafe {
            holdsFailSafe = true
            driveHostLevels(failSafe: true, at: MachineInstant(nanoseconds: time))
        }
    }

    /// Starts any pulse an action asked for, ends those due, then writes each output whose
    /// wanted level differs from the last one written. A failed write to an output that
    /// declares a failure event sends it (the machine's answer drives the outputs again).
    /// Once the controller holds its fail safe, nothing is written: the levels stay put, and
    /// each output the machine would move is noted as held.
    @inlinable
    final func applyOutputs(at time: Int64) {
        if holdsFailSafe { return noteHostOverrides() }
        let declared = App.outputs
        for index in 0..<declared.count {
            if let pulse = declared[index].pulse, pulse.takeRequest(&machine.context) { outputs.startPulse(index, at: time) }
            outputs.endPulseIfDue(index, at: time)
        }
        // Break before make: interlocked outputs going off first, then everything in
        // declaration order (an application without interlocks is written as declared).
        for index in 0..<declared.count where outputs.isInterlocked(index) && !wantedLevel(index) { write(index, at: time) }
        for index in 0..<declared.count { write(index, at: time) }
    }

    /// The level the machine wants on the declared output `index` now, its pulse included.
    /// Read afresh for every write: a failed write may move the machine, whose outputs must win
    /// over the ones the interrupted pass started with.
    @inlinable
    final func wantedLevel(_ index: Int) -> Bool {
        App.outputs[index].level(in: machine) || outputs.isPulsing(index)
    }

    /// Writes output `index` if the machine's level differs from the line's; an interlock holds
    /// the later output off unless its declaration yields now.
    @inlinable
    final func write(_ index: Int, at time: Int64) {
        let level = wantedLevel(index)
        let slot: Int
        switch outputs.decide(index, level: level) {
        case .none:
            return
        case .write(let free):
            slot = free
        case .interlocked(let held):
            guard outputs.interlockYields[index]?.callAsFunction(in: machine) ?? false else {
                return outputs.note(.interlock, for: index)
            }
            slot = held
        }
        do {
            try lineWriter.write(level, at: slot)
        } catch {
            return writeFailed(error, index: index, slot: slot, at: time)
        }
        outputs.wrote(level, slot: slot, index: index)
        outputLog?.record(OutputWrite(
            time: MachineInstant(nanoseconds: time), role: App.outputs[index].role, value: level, completed: completionClock?.now()))
    }

    /// A write to output `index` failed: counted, noted, recorded, and its failure event sent.
    @usableFromInline
    final func writeFailed(_ error: GPIOError, index: Int, slot: Int, at time: Int64) {
        let output = App.outputs[index]
        // Before the failure event: the machine's answer writes the outputs again.
        outputs.writeFailed(slot: slot, index: index)
        inputLog?.record(InputRecord(time: MachineInstant(nanoseconds: time), input: .outputWriteFailed(output.role)))
        if case .chipGone = error { chipLost = error }
        if let event = output.writeFailure, !recoveringFromWriteFailure {
            recoveringFromWriteFailure = true
            dispatch(event, at: time)
            recoveringFromWriteFailure = false
        }
    }
}
