import ControllerHost
import ControllerFSM
import ControllerFSMSim

/// An application on a simulated chip, in virtual time, played through a scenario.
///
/// Inputs are physical pulses on the lines (with the board's contact bounce), so every run goes
/// through the same path as the hardware: edge → debouncer → machine → output write. Time jumps
/// from one thing to the next (an edge, a debounce period ending, a timer), so a minute of
/// controller takes milliseconds, unless `realtime` asks to follow the wall clock.
public final class Simulation<App: ControllerApplication> {
    public let board: Board<App>
    public let clock = ManualClock()
    public let controller: Controller<App, SimChip>
    public let chip: SimChip

    private let inputOffsets: [RoleName: GPIOLineOffset]
    private let reporter: any SimulationReporter<App>
    /// Dispatch records between two output writes (when the trace is drained): far more than a
    /// scenario's events at one instant.
    static var traceCapacity: Int { 1024 }
    private let trace = TraceRing<App.State, App.Event>(capacity: Simulation.traceCapacity)
    private let relay: OutputRelay
    private let breakage: Breakage<App>
    private let plant: PlantDriver<App>?
    /// What the run checks after every step, named once.
    private let invariants = App.checkedInvariants
    /// Which invariants do not hold now, so each episode is reported once.
    private var broken: [Bool]
    /// The controller's override codes last reported.
    private var reportedOverrideCodes: UInt64 = 0
    /// Episodes of a checked invariant not holding so far.
    public private(set) var brokenInvariants = 0

    /// Builds the simulated chip from `board` and requests its lines. The outputs' initial
    /// values reach `reporter` at once. With `plant` (the default) the application's
    /// `ControllerApplication/Plant` drives its inputs; without, the scenario drives every
    /// input by hand (to reach what the mechanism would never do).
    public init(board: Board<App>, seed: UInt64 = 1, breakProbability: Double = 0, plant: Bool = true,
                reporter: any SimulationReporter<App>) throws(GPIOError) {
        precondition((0...1).contains(breakProbability), "breakProbability is a probability, got \(breakProbability)")
        self.board = board
        self.reporter = reporter
        let relay = OutputRelay()
        let simulated = SimulatedBoard<App>(board: board, clock: clock, seed: seed) { change in relay.forward(change) }
        let plant = plant ? PlantDriver<App>(board: board, chip: simulated.chip, inputOffsets: simulated.inputOffsets, at: clock.now()) : nil
        relay.roles = simulated.outputRoles
        // The plant weakly: it holds the chip, whose output sink holds this relay.
        relay.report = { [trace, unowned reporter, weak plant] role, value, time in
            // Dispatches recorded before this write come first in the story.
            trace.drain { reporter.dispatched($0) }
            reporter.output(role, value: value, at: time)
            plant?.output(role, value, at: time)
        }
        self.relay = relay
        self.plant = plant
        broken = App.checkedInvariants.map { _ in false }
        chip = simulated.chip
        inputOffsets = simulated.inputOffsets
        controller = try Controller(chip: chip, board: board, trace: trace)
        breakage = Breakage(probability: breakProbability, seed: seed)
        if let rule = App.simulatedBreakage {
            var hooks = MachineHooks<App.State, App.Event>()
            hooks.afterEvent = { [breakage] record in
                if record.outcome.wasTaken && rule.after(record.from, record.event) { breakage.toJudge += 1 }
            }
            controller.setHooks(hooks)
        }
    }

    /// The names a scenario for `board` may use in `expect` lines.
    public static func vocabulary(for board: Board<App>) -> ScenarioVocabulary<App> {
        ScenarioVocabulary(for: board)
    }

    /// Refuses a scenario that drives a line `board` does not have, or that drives one line in
    /// a way the controller could not see as separate inputs: a pulse starting before the last
    /// one on its line has ended and been seen to end (they would merge into one coin — money
    /// lost in silence), a level set twice, or a level changed back within its debounce period.
    /// With `plant`, a line the application's plant drives is refused too.
    public static func check(_ scenario: Scenario<App>, against board: Board<App>, plant: Bool = true) throws(ScenarioError) {
        /// When each line is next free, and the step that holds it until then.
        var busy: [RoleName: (until: Duration, step: ScenarioStep<App>)] = [:]
        var levels: [RoleName: (Bool, ScenarioStep<App>)] = [:]
        // A `set` is held to the board's relations as a board file's value is (one
        // validation, `Board.validate`): the settings as they stand after each one.
        var settings = board.settings
        for step in scenario.steps {
            if case .set(let name, let value) = step.action, let key = App.settings.key(named: name) {
                settings = key.setting(value, in: settings)
                do {
                    try board.validate(settings, file: scenario.file, simulated: true)
                } catch {
                    var refused = ""
                    if case .keyPath(let path) = error.location { refused = " (\(path))" }
                    throw ScenarioError(
                        file: scenario.file, line: step.line, reason: "set \(name) \(value.secondsText)\(refused): \(error.reason)",
                        hint: error.hint)
                }
            }
            if case .unreplayable(let reason) = step.action {
                throw ScenarioError(
                    file: scenario.file, line: step.line,
                    reason: "at \(step.time.secondsText) s the recorded run met what a replay cannot reproduce: \(reason)",
                    hint: "the replay would end elsewhere; replay the part before it (cut the file before this line, and add an end)")
            }
            guard let (role, width) = drive(of: step.action, on: board) else { continue }
            if plant && App.Plant.drivenInputs.contains(role) {
                throw ScenarioError(
                    file: scenario.file, line: step.line,
                    reason: "the simulated \(App.name)'s mechanism drives the \(role) line itself",
                    hint: "remove the line; move the mechanism with the outputs (or the plant's own words) instead")
            }
            if case .pulse(_, let hold?) = step.action, hold < shortestHold(of: role, on: board) {
                let debounce = board.inputs[role]?.debounce ?? .zero
                throw ScenarioError(
                    file: scenario.file, line: step.line,
                    reason: "a \(role) hold of \(hold.secondsText) s is too short: it must outlast inputs.\(role).debounce "
                        + "(\(debounce.secondsText) s) and sim.bounce_window (\(bounce(board).secondsText) s), "
                        + "or the \(role) is never seen",
                    hint: "the smallest that works on this board is \(TimingRelations.roundedUp(shortestHold(of: role, on: board)).secondsText) s")
            }
            guard let line = board.inputs[role] else {
                throw ScenarioError(
                    file: scenario.file, line: step.line,
                    reason: "this board has no \(role) input",
                    hint: "add an [inputs.\(role)] section to the board file, or remove the line")
            }
            if let (until, holder) = busy[role], step.time < until {
                let what = width == nil ? "changes the \(role) line" : "starts a pulse on the \(role) line"
                throw ScenarioError(
                    file: scenario.file, line: step.line,
                    reason: "at \(step.time.secondsText) s this \(what) while line \(holder.line)'s "
                        + "(at \(holder.time.secondsText) s) has not yet been seen to end: the two would merge into one input",
                    hint: "move it to \(until.secondsTextRoundedUp) s or later (the pulse and its bounce, then the \(line.debounce.secondsText) s debounce period)")
            }
            if case .level(_, let on) = step.action {
                if let (active, previous) = levels[role], active == on {
                    throw ScenarioError(
                        file: scenario.file, line: step.line,
                        reason: "the \(role) line is already \(on ? "active" : "inactive") (line \(previous.line))",
                        hint: "remove the line, or switch it \(on ? "off" : "on") first")
                }
                levels[role] = (on, step)
            }
            busy[role] = (step.time + board.lineHold(role, width: width), step)
        }
    }

    /// The input line `action` drives and, for a pulse, how long it holds it active.
    private static func drive(of action: ScenarioAction<App>, on board: Board<App>) -> (RoleName, Duration?)? {
        switch action {
        case .pulse(let role, let width): (role, width ?? board.simulatedPulseWidth(role))
        case .level(let role, _): (role, nil)
        default: nil
        }
    }

    /// Plays `scenario` to its end and returns the summary; failed `expect`s go to the reporter
    /// as they are found. A GPIO error (a fault injected into the chip) ends the run early.
    @discardableResult
    public func run(_ scenario: Scenario<App>, realtime: Bool = false) throws(GPIOError) -> SimulationSummary<App> {
        let end = MachineInstant.zero + scenario.endTime
        var player = ScenarioPlayer(scenario)
        for action in player.setBeforeStart { try perform(action, at: .zero) }
        var failures = 0
        wallClockStart = realtime ? MonotonicClock().now() : nil
        try start()
        try player.play(
            through: end,
            settleBefore: { (time, _) throws(GPIOError) in try advance(before: time) },
            check: { step in
                if let failure = Self.evaluate(step, file: scenario.file, on: controller) {
                    failures += 1
                    reporter.expectationFailed(failure)
                }
            },
            settleAt: { _ throws(GPIOError) in },
            perform: { (action, time) throws(GPIOError) in try perform(action, at: time) })
        let checked = player.checkedExpectations
        try advance(through: end)
        wallClockStart = nil

        var summary = SimulationSummary<App>(
            state: controller.state, gauges: controller.gaugeValues, counters: controller.counterValues,
            endTime: end.duration(since: .zero), failedExpectations: failures, checkedExpectations: checked)
        summary.activeStates = controller.activeStates
        summary.outputOverrides = controller.outputOverrides
        summary.brokenInvariants = brokenInvariants
        summary.unsettledSteps = controller.unsettledSteps
        summary.unsettledReport = controller.unsettledReport
        reporter.finished(summary)
        return summary
    }

    /// Starts the controller at the clock's time: it reads the input levels and drives the
    /// outputs. `run` does this itself; call it when driving the simulation step by step.
    public func start() throws(GPIOError) {
        chip.advance(to: clock.now())
        try controller.start(at: clock.now())
        flushTrace()
        checkSafety(at: clock.now())
        plant?.advance(to: clock.now())
    }

    /// Makes everything up to and including `time` happen: edges, debouncing, timers, outputs.
    public func advance(through time: MachineInstant) throws(GPIOError) {
        try advance(before: time)
        try process(at: time)
    }

    /// Makes everything strictly before `time` happen.
    public func advance(before time: MachineInstant) throws(GPIOError) {
        while true {
            var next = MachineInstant(nanoseconds: .max)
            if let edge = chip.nextEventTime { next = Swift.min(next, edge) }
            if let deadline = controller.nextDeadline { next = Swift.min(next, deadline) }
            if let change = plant?.nextChange { next = Swift.min(next, change) }
            if next >= time { return }
            try process(at: next)
        }
    }

    /// Acts on the inputs at `time` (not before the last time advanced to): a pulse or a level
    /// on a line, or a direct command. Expectations do nothing here.
    /// - Throws: a GPIO error (an injected fault) met while handling what happened up to `time`.
    public func perform(_ action: ScenarioAction<App>, at time: MachineInstant) throws(GPIOError) {
        switch action {
        case .pulse(let role, let width):
            guard let width = width ?? board.simulatedPulseWidth(role) else { break }
            pulse(role, at: time, width: width)
        case .level(let role, let on): chip.scheduleLevel(line: inputOffsets[role]!, at: time, active: on)
        case .command(let event):
            chip.advance(to: time)
            try controller.send(event, at: time)
            try finishStep(at: time)
        case .set(let key, let value):
            // As the daemon reloads: what came before is taken with the old timings.
            chip.advance(to: time)
            try controller.process(now: time)
            guard let key = App.settings.key(named: key) else { break }
            controller.retime(key.setting(value, in: controller.settings), at: time)
            try finishStep(at: time)
        case .plant(let action):
            plant?.perform(action, at: time)
        case .inputsAsTaken:
            inputsAsTaken = true
        // `unreplayable` is refused by `check` before anything runs.
        case .expectState, .expectCounter, .expectGauge, .expectOutput, .unreplayable, .end: break
        }
    }

    private var wallClockStart: MachineInstant?

    private func process(at now: MachineInstant) throws(GPIOError) {
        if let wallClockStart { sleep(until: wallClockStart + now.duration(since: .zero)) }
        plant?.advance(to: now)
        chip.advance(to: now)
        try controller.process(now: now)
        try finishStep(at: now)
    }

    /// After the controller has handled a moment: the arm model's breakage, then the story so
    /// far; the plant answers the outputs just written (a limit switch opens as the motor starts).
    private func finishStep(at now: MachineInstant) throws(GPIOError) {
        try judgeBreakage(at: now)
        flushTrace()
        checkSafety(at: now)
        plant?.advance(to: now)
    }

    /// After each step: every output the host began holding against the machine, and every
    /// checked invariant that stopped holding, each reported once per episode.
    private func checkSafety(at now: MachineInstant) {
        let codes = controller.overrideCodes
        if codes != reportedOverrideCodes {
            let was = OutputOverride.decode(reportedOverrideCodes, outputs: App.outputs.count)
            for (index, reason) in OutputOverride.decode(codes, outputs: App.outputs.count).enumerated()
            where reason != .none && was[index] != reason {
                reporter.outputOverridden(App.outputs[index].role, reason: reason.description, at: now)
            }
            reportedOverrideCodes = codes
        }
        for index in invariants.indices {
            let holds = invariants[index].holds(controller.configuration, controller.context)
            if !holds && !broken[index] {
                brokenInvariants += 1
                reporter.invariantBroken(invariants[index].name, in: activeStateNames(controller.activeStates), at: now)
            }
            broken[index] = !holds
        }
    }

    // MARK: Steps

    /// Whether inputs change cleanly at their written times (`inputs as taken`, a recording's).
    private var inputsAsTaken = false

    private func pulse(_ role: RoleName, at time: MachineInstant, width: Duration) {
        chip.schedulePulse(
            line: inputOffsets[role]!, at: time, width: width,
            bounceEdges: inputsAsTaken ? 0 : board.sim.bounceEdges, bounceWindow: board.sim.bounceWindow)
    }

    /// Checks an `expect` step against `controller` as it stands (the caller has made
    /// everything strictly before the step's time happen); nil when it holds or is no `expect`.
    /// `simulate` and `run --script` both check with this.
    package static func evaluate<Chip: GPIOChip>(_ step: ScenarioStep<App>, file: String, on controller: Controller<App, Chip>) -> ExpectationFailure? {
        func failure(_ message: String) -> ExpectationFailure {
            ExpectationFailure(file: file, line: step.line, time: step.time, message: message)
        }
        switch step.action {
        case .expectState(let name):
            // Active at any level and in any region: in a nested machine a superstate holds
            // while any state inside it is the innermost one; with parallel regions, a state of
            // any region.
            if App.State.allCases.contains(where: { $0.name == name && controller.isActive($0) }) { return nil }
            let configuration = controller.activeStates
                .map { App.table.configuration(of: $0).map(\.name).joined(separator: " in ") }
                .joined(separator: ", and ")
            return failure("expected state \(name), but the \(App.name) is \(configuration)")
        case .expectCounter(let name, let value):
            let actual = controller.count(named: name) ?? 0
            return actual == value ? nil : failure("expected counter \(name) to be \(value), but it is \(actual)")
        case .expectGauge(let name, let value):
            let actual = App.gauges.firstIndex { $0.name == name }.map { controller.gaugeValues[$0] } ?? 0
            return actual == value ? nil : failure("expected \(name) \(value), but it is \(actual)")
        case .expectOutput(let name, let value):
            let actual = controller.output(RoleName(name)) ?? false
            return actual == value ? nil : failure("expected output \(name) to be \(value ? 1 : 0), but it is \(actual ? 1 : 0)")
        default:
            return nil
        }
    }

    /// `--break-probability`: each step the application's breakage rule names
    /// (`ControllerApplication.simulatedBreakage`) may break the mechanism.
    private func judgeBreakage(at now: MachineInstant) throws(GPIOError) {
        guard let rule = App.simulatedBreakage else { return }
        while breakage.toJudge > 0 {
            breakage.toJudge -= 1
            if breakage.breaks() { try controller.send(rule.sends, at: now) }
        }
    }

    private func flushTrace() {
        trace.drain { reporter.dispatched($0) }
    }

    private func sleep(until target: MachineInstant) {
        let wait = target.duration(since: MonotonicClock().now())
        guard wait > .zero else { return }
        MonotonicClock.sleep(nanoseconds: wait.nanosecondCount)
    }
}

/// Carries output changes from the chip's sink (which must be `Sendable`) to the reporter.
/// The simulation runs on one thread, which is also the one that writes outputs.
private final class OutputRelay: @unchecked Sendable {
    var roles: [GPIOLineOffset: RoleName] = [:]
    var report: ((RoleName, Bool, MachineInstant) -> Void)?

    func forward(_ change: SimOutputChange) {
        guard let role = roles[change.offset] else { return }
        report?(role, change.value, change.time)
    }
}

/// The simulated mechanism's random breakage (`--break-probability`), seeded so runs repeat.
private final class Breakage<App> {
    let probability: Double
    var random: SplitMix64
    var toJudge = 0

    init(probability: Double, seed: UInt64) {
        self.probability = probability
        // A stream of its own, so breakage does not shift the contact bounce.
        random = SplitMix64(seed: seed ^ 0xB4EA_CA9E_0F7A_11ED)
    }

    func breaks() -> Bool {
        probability > 0 && random.nextUnitInterval() < probability
    }
}
