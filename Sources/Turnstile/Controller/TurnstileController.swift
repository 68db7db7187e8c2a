import ControllerFSM

/// The turnstile on a GPIO chip: edges in, debounced, dispatched to the machine, outputs written.
///
/// Generic over the chip so the same code runs on libgpiod and on the simulator, with concrete
/// calls on the event path. Everything the path touches — the raw edge buffer, the debouncer,
/// the machine, the output levels — is reserved here, so `process(now:)` does not allocate.
///
/// Single-threaded: one event loop calls `start`, then `process(now:)` whenever an input is
/// readable or `nextDeadline` passes, and `stop` at the end.
public final class TurnstileController<Chip: GPIOChip> {
    public typealias Trace = TraceRing<TurnstileState, TurnstileEvent>

    public typealias OutputLog = RecordRing<OutputWrite>

    public typealias Ledger = RecordRing<LedgerEntry>

    public typealias InputLog = RecordRing<InputRecord>

    let board: BoardFile
    let trace: Trace?
    /// Every output write that succeeded after the request (the initial levels are
    /// ``output(_:)``'s answers before ``start(at:)``).
    let outputLog: OutputLog?
    /// Where the turnstile stood after every step: what a durable store drains.
    let ledger: Ledger?
    /// Every debounced edge and command taken: what a flight recorder drains.
    let inputLog: InputLog?
    private let completionClock: (any MachineClock)?
    /// Told, at the end of every call that may write the trace or the output log, how far they
    /// hold whole steps; for a reporter that drains them from another thread.
    package var reportWatermark: ReportWatermark?

    private var machine: TurnstileMachine.Machine
    private var inputs: Chip.Inputs
    private var outputs: Chip.Outputs
    private let inputSettings: [InputLineSettings]
    private let outputSettings: [OutputLineSettings]
    private var debouncer: EdgeDebouncer
    private let rawEdges: UnsafeMutableBufferPointer<EdgeEvent>
    /// Edges taken from the chip per read; `process(now:)` reads again while more wait, so this
    /// sets only how many reads a burst takes. The libgpiod backend's own batch
    /// (`CGPIOD_EVENTS_PER_READ`).
    static var edgeReadBatch: Int { 64 }
    /// The role of each line of the input request, by request index.
    private let inputRoles: [InputRole]
    /// The request index of each output role (`OutputRole.allCases` order), -1 when not wired.
    private let outputSlots: [Int]
    /// The logical level last written to each output, by request index.
    private var written: [Bool]

    private var jamTimeout: Int64
    private var alarmPulse: Int64
    /// Where the lock goes when the daemon stops; a reload may change it.
    package private(set) var failMode: FailMode
    /// When the held push becomes a jam; `Int64.max` when the push line is inactive.
    private var jamDeadline = Int64.max
    /// The push line has been held past the jam timeout and is still held: the arm is stuck, so
    /// the turnstile must not return to service (a jam whose `fault` was ignored during an
    /// emergency or a repair is raised again when the machine comes back to `locked`).
    private var jammed = false
    /// The fire alarm, as the emergency line and commands say: the machine is in `emergency`
    /// exactly while this is active.
    private var emergency = ConditionSources()
    /// When the alarm pulse ends; `Int64.min` when none is sounding.
    private var alarmPulseEnd = Int64.min
    private var recoveringFromWriteFailure = false
    /// Set when a write found the chip gone: nothing can be controlled any more, and the next
    /// `process(now:)` says so.
    private var chipLost: GPIOError?
    /// The input being handled, for the ledger entry its step makes; `nil` while a timer or a
    /// jam runs.
    private var cause: ControllerInput?

    /// The `[turnstile]` section in force: the board's, or the last one ``retime(_:at:)`` took.
    package private(set) var settings: BoardFile.TurnstileSettings

    /// Output writes that failed (each failed lock write also raised `fault`).
    package private(set) var outputWriteFailures = 0
    /// Edges the backend lost before they were read (gaps in the events' sequence numbers).
    package private(set) var lostEdges = 0
    /// The sequence number the next raw edge should carry: a request numbers its edges from 0,
    /// so edges lost before the first read are counted too.
    private var expectedSequence: UInt64 = 0

    /// Requests the board's lines from `chip`: inputs with both edges, outputs at their safe
    /// initial levels (locked, no alarm, not ready, coins inhibited).
    /// - Parameters:
    ///   - trace: receives every dispatch, for another thread to report.
    ///   - outputLog: receives every output write, for another thread to report.
    ///   - ledger: receives the state, credit and counters after every step, for another
    ///     thread to make durable.
    ///   - inputLog: receives every debounced edge and command taken, for another thread to
    ///     record as a scenario.
    ///   - completionClock: stamps each logged write with when it completed, on the timeline
    ///     of the edges' timestamps (the kernel's monotonic clock), so the reporter can tell the
    ///     edge-to-relay latency.
    public init(
        chip: Chip, board: BoardFile, trace: Trace? = nil, outputLog: OutputLog? = nil,
        ledger: Ledger? = nil, inputLog: InputLog? = nil, completionClock: (any MachineClock)? = nil
    ) throws(GPIOError) {
        self.board = board
        self.trace = trace
        self.outputLog = outputLog
        self.ledger = ledger
        self.inputLog = inputLog
        self.completionClock = completionClock
        let settings = board.turnstile
        self.settings = settings
        machine = TurnstileMachine.makeMachine(
            timings: TurnstileTimings(relockTimeout: settings.relockTimeout, repairPeriod: settings.repairPeriod),
            trace: trace)
        jamTimeout = settings.jamTimeout.nanosecondCount
        alarmPulse = settings.alarmPulse.nanosecondCount
        failMode = settings.failMode

        var roles: [InputRole] = []
        var inputSettings: [InputLineSettings] = []
        for role in InputRole.allCases {
            guard let line = board.inputs[role] else { continue }
            roles.append(role)
            inputSettings.append(InputLineSettings(
                offset: try Self.offset(of: line.line, on: chip),
                activeLow: line.activeLow, bias: line.bias, debounce: line.debounce))
        }
        var slots = [Int](repeating: -1, count: OutputRole.allCases.count)
        var outputSettings: [OutputLineSettings] = []
        for (position, role) in OutputRole.allCases.enumerated() {
            guard let line = board.outputs[role] else { continue }
            slots[position] = outputSettings.count
            outputSettings.append(OutputLineSettings(
                offset: try Self.offset(of: line.line, on: chip),
                activeLow: line.activeLow, initialValue: Self.initialLevel(of: role)))
        }
        inputRoles = roles
        outputSlots = slots
        written = outputSettings.map(\.initialValue)
        // Outputs first: from this moment the relay is held at its safe level, before any
        // input can be taken.
        let consumer = board.consumer
        outputs = try chip.requestOutputs(outputSettings, consumer: consumer)
        do {
            inputs = try chip.requestInputs(inputSettings, consumer: consumer)
        } catch {
            outputs.release()
            throw error
        }
        // Where the backend debounces (the kernel's debounce in libgpiod v2), edges arrive
        // settled; filtering them again would delay each by a second period.
        let settled = inputs.edgesAreDebounced
        debouncer = EdgeDebouncer(periods: inputSettings.map { settled ? .zero : $0.debounce })
        self.inputSettings = inputSettings
        self.outputSettings = outputSettings
        rawEdges = .allocate(capacity: Self.edgeReadBatch)
    }

    deinit {
        rawEdges.deallocate()
    }

    /// Reads every input's level, starts the machine in `locked`, and — a controller started
    /// during a fire alarm — goes straight to `emergency` if the emergency line is active.
    public func start(at now: MachineInstant) throws(GPIOError) {
        defer { publishSettled() }
        for (index, role) in inputRoles.enumerated() {
            let active = try inputs.readValue(at: index)
            debouncer.setLevel(active, ofLine: index)
            if role == .emergency { _ = emergency.set(.line, active: active) }
            if role == .push && active { jamDeadline = MachineInstant.saturatingSum(now.nanoseconds, jamTimeout) }
        }
        machine.start(at: now)
        // A fire alarm already on is taken before any output is written, so the outputs go
        // from their safe initial levels straight to the emergency's: nothing shows `locked`.
        if emergency.isActive { machine.send(.emergencyOn, at: now) }
        settle(at: now.nanoseconds)
    }

    /// Handles everything that happened up to `now`: pending edges (debounced, in time order),
    /// the machine's timers, jam detection and the end of an alarm pulse, each at its own time.
    public func process(now: MachineInstant) throws(GPIOError) {
        defer { publishSettled() }
        if let chipLost { throw chipLost }
        while inputs.hasPendingEdgeEvents {
            let count = try inputs.readEdgeEvents(into: rawEdges)
            for index in 0..<count {
                noteSequence(rawEdges[index].sequence)
                debouncer.feed(rawEdges[index])
            }
            if count < rawEdges.count { break }
        }
        while let edge = debouncer.nextAcceptedEdge(now: now) {
            runDeadlines(upTo: edge.timestamp.nanoseconds)
            handle(edge)
        }
        runDeadlines(upTo: now.nanoseconds)
    }

    /// Sends a direct command: `fault`, `repair`, `emergencyOn`, `emergencyOff`.
    ///
    /// Everything that happened up to `now` is handled first — edges already on the chip
    /// included — so a command never leaves an edge unread: the edge's debounce deadline is
    /// known again when the command returns, whatever order same-time inputs came in.
    ///
    /// An emergency command is one source of the fire alarm beside the emergency line (see
    /// ``ConditionSources``): it can declare an alarm, never end one the line still signals.
    @discardableResult
    package func send(_ event: TurnstileEvent, at now: MachineInstant) throws(GPIOError) -> CommandOutcome {
        defer { publishSettled() }
        try process(now: now)
        take(.command(event), at: now.nanoseconds)
        defer { cause = nil }
        switch event {
        case .emergencyOn, .emergencyOff:
            let declared = event == .emergencyOn
            guard let changed = emergency.set(.command, active: declared) else {
                return !declared && emergency.line ? .heldByLine(.emergency) : .alreadyInEffect
            }
            dispatch(changed ? .emergencyOn : .emergencyOff, at: now.nanoseconds)
        default:
            dispatch(event, at: now.nanoseconds)
        }
        return .dispatched
    }

    /// When `process(now:)` next has something to do without a new edge: a debounce period
    /// ending, a timer, a jam, the end of an alarm pulse.
    public var nextDeadline: MachineInstant? {
        var earliest = Swift.min(jamDeadline, machine.nextDeadline?.nanoseconds ?? .max)
        if alarmPulseEnd != .min { earliest = Swift.min(earliest, alarmPulseEnd) }
        if let debounce = debouncer.nextDeadline { earliest = Swift.min(earliest, debounce.nanoseconds) }
        return earliest == .max ? nil : MachineInstant(nanoseconds: earliest)
    }

    /// Drives the lock as the board's `fail_mode` says (`secure`: locked, `safe`: released) and
    /// gives the lines back.
    package func stop(at now: MachineInstant) {
        driveFailMode(at: now)
        releaseLines()
    }

    /// Drives the lock to the board's `fail_mode` level; the controller takes no more events
    /// after this (call ``releaseLines()`` next).
    package func driveFailMode(at now: MachineInstant) {
        defer { publishSettled() }
        guard let slot = slot(of: .lock) else { return }
        let level = failMode == .secure
        do {
            try outputs.write(level, at: slot)
            written[slot] = level
            outputLog?.record(OutputWrite(time: now, role: .lock, value: level, completed: nil))
        } catch {
            outputWriteFailures += 1
        }
    }

    /// Takes new timings and a new fail mode (a reloaded board file's `[turnstile]` section)
    /// at `now`. A timer already running keeps its deadline; the next one started uses the new
    /// period. Handle everything up to `now` first (`process(now:)`), as a command does: what
    /// came before the change is taken with the old timings. The change goes to the input log:
    /// it changes behaviour, so a recording must hold it.
    package func retime(_ settings: BoardFile.TurnstileSettings, at now: MachineInstant) {
        inputLog?.record(InputRecord(time: now, input: .retime(settings)))
        self.settings = settings
        machine.context.retime(TurnstileTimings(relockTimeout: settings.relockTimeout, repairPeriod: settings.repairPeriod))
        jamTimeout = settings.jamTimeout.nanosecondCount
        alarmPulse = settings.alarmPulse.nanosecondCount
        failMode = settings.failMode
    }

    /// Requests the board's lines again, from `chip`, after the chip the controller had went
    /// away (an expander unplugged and plugged back, a driver rebound). The machine keeps its
    /// state, credit and counters. Outputs are requested at the levels the machine wants now;
    /// each input is read, and one found at a level other than the last one taken becomes an
    /// edge at `now`: what changed while the chip was gone is late, never lost.
    package func reattach(to chip: Chip, at now: MachineInstant) throws(GPIOError) {
        defer { publishSettled() }
        var levels = outputSettings
        for role in OutputRole.allCases {
            guard let slot = slot(of: role) else { continue }
            levels[slot].initialValue = wantedLevel(role)
        }
        let newOutputs = try chip.requestOutputs(levels, consumer: board.consumer)
        let newInputs: Chip.Inputs
        do {
            newInputs = try chip.requestInputs(inputSettings, consumer: board.consumer)
        } catch {
            newOutputs.release()
            throw error
        }
        outputs.release()
        inputs.release()
        outputs = newOutputs
        inputs = newInputs
        for (slot, setting) in levels.enumerated() { written[slot] = setting.initialValue }
        chipLost = nil
        // A new request numbers its edges from 0.
        expectedSequence = 0
        let settled = inputs.edgesAreDebounced
        debouncer = EdgeDebouncer(
            periods: inputSettings.map { settled ? .zero : $0.debounce },
            initialLevels: (0..<inputRoles.count).map { debouncer.level(ofLine: $0) })
        for index in inputRoles.indices {
            let active = try inputs.readValue(at: index)
            guard active != debouncer.level(ofLine: index) else { continue }
            debouncer.setLevel(active, ofLine: index)
            handle(EdgeEvent(lineIndex: index, kind: EdgeKind(becameActive: active), timestamp: now, sequence: 0))
        }
        settle(at: now.nanoseconds)
    }

    /// Gives the lines back: outputs first, so that nothing taken after the fail-mode drive
    /// could move them. A released output is no longer driven and falls to its pull.
    package func releaseLines() {
        outputs.release()
        inputs.release()
    }

    /// A descriptor that polls readable when input edges wait (`nil` on the simulator): what
    /// an event loop waits on, with ``nextDeadline`` as its timeout.
    package var pollDescriptor: Int32? { inputs.pollDescriptor }

    package var state: TurnstileState { machine.state }
    package var credit: Int { machine.context.credit }
    package var statistics: MachineStatistics { machine.statistics }

    /// The counters, with `ignored` taken from the machine's statistics.
    public var counters: TurnstileCounters {
        var counters = machine.context.counters
        counters.ignored = machine.statistics.ignored
        return counters
    }

    /// The logical level last written to `role`'s line; `nil` when the board does not wire it.
    package func output(_ role: OutputRole) -> Bool? {
        slot(of: role).map { written[$0] }
    }

    /// Sets hooks on the machine (e.g. to watch passages in a simulation).
    package func setHooks(_ hooks: MachineHooks<TurnstileState, TurnstileEvent>) {
        machine.hooks = hooks
    }

    // MARK: The event path

    /// Counts the edges a gap in sequence numbers says were lost (the kernel's buffer
    /// overflowed): they cannot be recovered, but they are never silently ignored.
    private func publishSettled() {
        reportWatermark?.publish(trace: trace?.recordedCount ?? 0, outputs: outputLog?.recordedCount ?? 0)
    }

    private func noteSequence(_ sequence: UInt64) {
        if sequence > expectedSequence {
            lostEdges += Int(clamping: sequence - expectedSequence)
        }
        expectedSequence = sequence &+ 1
    }

    private func handle(_ edge: EdgeEvent) {
        let time = edge.timestamp.nanoseconds
        let active = edge.kind.isActive
        let role = inputRoles[edge.lineIndex]
        take(.edge(role, active: active), at: time)
        defer { cause = nil }
        switch role {
        case .coin:
            if active { dispatch(.coin, at: time) }
        case .push:
            jamDeadline = active ? MachineInstant.saturatingSum(time, jamTimeout) : .max
            if !active { jammed = false }
            if active { dispatch(.push, at: time) }
        case .service:
            if active { dispatch(.repair, at: time) }
        case .emergency:
            if let changed = emergency.set(.line, active: active) {
                dispatch(changed ? .emergencyOn : .emergencyOff, at: time)
            }
        }
    }

    /// Whatever falls due by `limit`, earliest first: a jam, the machine's timers, the end of
    /// an alarm pulse.
    private func runDeadlines(upTo limit: Int64) {
        while true {
            let timer = machine.nextDeadline?.nanoseconds ?? .max
            let pulseEnd = alarmPulseEnd == .min ? Int64.max : alarmPulseEnd
            let due = Swift.min(jamDeadline, timer, pulseEnd)
            if due > limit { return }
            if due == jamDeadline {
                jamDeadline = .max
                jammed = true
                dispatch(.fault, at: due)
            } else if due == timer {
                machine.advance(to: MachineInstant(nanoseconds: due))
                settle(at: due)
            } else {
                applyOutputs(at: due)
            }
        }
    }

    /// Notes an input for the flight recorder and as the cause of the step it makes.
    private func take(_ input: ControllerInput, at time: Int64) {
        cause = input
        inputLog?.record(InputRecord(time: MachineInstant(nanoseconds: time), input: input))
    }

    private func dispatch(_ event: TurnstileEvent, at time: Int64) {
        machine.send(event, at: MachineInstant(nanoseconds: time))
        settle(at: time)
    }

    /// After the machine moved: drive the outputs, and if it came back into service with the
    /// arm still jammed, that is a fault again.
    private func settle(at time: Int64) {
        applyOutputs(at: time)
        if jammed && machine.state.isInService {
            machine.send(.fault, at: MachineInstant(nanoseconds: time))
            applyOutputs(at: time)
        }
        ledger?.record(LedgerEntry(
            time: MachineInstant(nanoseconds: time), state: machine.state, credit: machine.context.credit,
            counters: counters, cause: cause))
    }

    /// Writes each output whose wanted level differs from the last one written. A lock write
    /// that fails is a mechanism fault: the machine goes to `broken` (which drives the lock
    /// again and sounds the alarm).
    private func applyOutputs(at time: Int64) {
        if machine.context.outputs.alarmPulseRequested {
            machine.context.outputs.alarmPulseRequested = false
            alarmPulseEnd = MachineInstant.saturatingSum(time, alarmPulse)
        }
        if alarmPulseEnd != .min && time >= alarmPulseEnd { alarmPulseEnd = .min }
        write(.lock, at: time)
        write(.alarm, at: time)
        write(.ready, at: time)
        write(.inhibit, at: time)
    }

    /// The level the machine wants on `role`'s line now. Read afresh for every write: a failed
    /// lock write moves the machine to `broken`, whose outputs must win over the ones the
    /// interrupted pass started with.
    private func wantedLevel(_ role: OutputRole) -> Bool {
        let wanted = machine.context.outputs
        switch role {
        case .lock: return wanted.lock
        case .alarm: return wanted.alarm || alarmPulseEnd != .min
        case .ready: return wanted.ready
        case .inhibit: return wanted.inhibit
        }
    }

    private func write(_ role: OutputRole, at time: Int64) {
        guard let slot = slot(of: role) else { return }
        let level = wantedLevel(role)
        guard written[slot] != level else { return }
        do {
            try outputs.write(level, at: slot)
            written[slot] = level
            outputLog?.record(OutputWrite(
                time: MachineInstant(nanoseconds: time), role: role, value: level, completed: completionClock?.now()))
        } catch {
            outputWriteFailures += 1
            inputLog?.record(InputRecord(time: MachineInstant(nanoseconds: time), input: .outputWriteFailed(role)))
            if case .chipGone = error { chipLost = error }
            if role == .lock && !recoveringFromWriteFailure {
                recoveringFromWriteFailure = true
                dispatch(.fault, at: time)
                recoveringFromWriteFailure = false
            }
        }
    }

    private func slot(of role: OutputRole) -> Int? {
        let slot = outputSlots[role.position]
        return slot < 0 ? nil : slot
    }

    /// The offset of the line a board file names, by name or number.
    package static func offset(of selector: LineSelector, on chip: Chip) throws(GPIOError) -> GPIOLineOffset {
        switch selector {
        case .name(let name): try chip.offset(ofLineNamed: name)
        case .offset(let offset): GPIOLineOffset(offset)
        }
    }

    /// Outputs start safe: the arm held, no alarm, not ready, coins refused, until the machine
    /// says otherwise.
    private static func initialLevel(of role: OutputRole) -> Bool {
        switch role {
        case .lock, .inhibit: true
        case .alarm, .ready: false
        }
    }
}

extension OutputRole {
    /// The role's index in `allCases`, without building `allCases` (that allocates an array,
    /// and this runs on every output write).
    var position: Int {
        switch self {
        case .lock: 0
        case .alarm: 1
        case .ready: 2
        case .inhibit: 3
        }
    }
}

/// One output write, as ``TurnstileController/outputLog`` records it.
public struct OutputWrite: Hashable, Sendable {
    /// When the event that caused the write happened (an edge's kernel timestamp, a deadline).
    package var time: MachineInstant
    package var role: OutputRole
    /// The logical level written.
    package var value: Bool
    /// When the write returned, if the controller was given a completion clock.
    package var completed: MachineInstant?
}
