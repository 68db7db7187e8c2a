import ControllerFSM
import ControllerFSMGpiod
import ControllerFSMSim
import ControllerHost
import ControllerSimulation

/// What the event loop needs from the world beyond the controller: the time on the controller's
/// timeline, and — for a simulated board — the devices that drive the input lines.
protocol EventSource<App, Chip>: SendableMetatype {
    associatedtype App: ControllerApplication
    associatedtype Chip: GPIOChip
    /// Now, on the timeline of the controller's edge timestamps.
    func now() -> MachineInstant
    /// Where the daemon's time 0 is on that timeline (a script's time 0 on a simulated board).
    func startInstant() -> MachineInstant
    /// When the source next acts by itself (a simulated edge, a script step); nil for hardware.
    var nextDeadline: MachineInstant? { get }
    /// Makes what the source has due by `now` happen, before the controller looks.
    func advance(to now: MachineInstant, controller: Controller<App, Chip>) throws(GPIOError)
    /// Drives a pulse on the simulated line of input `index` (in ``ControllerApplication/inputs``),
    /// as its device would (or as soon as the line is free of the pulses before it).
    func pulse(input index: Int, at now: MachineInstant) -> PulseOutcome
    /// Sets the simulated line of level input `index` active or inactive.
    func setLevel(input index: Int, active: Bool, at now: MachineInstant) -> PulseOutcome
    /// Has the simulated plant perform `action` (`ctl plant arm stuck`), as a script's step would.
    func perform(plant action: App.Plant.Action, controller: Controller<App, Chip>, at now: MachineInstant) -> PulseOutcome
    /// The accepted pulses that had not started by `now`, by line: what a stop then drops.
    func unstartedPulses(at now: MachineInstant) -> [(role: RoleName, count: Int)]
    /// The chip again after it was lost, or nil while it is still gone.
    func reopen() -> Chip?
    /// The script's `expect` lines so far (none on hardware): read after the loop stopped.
    var expectations: ScriptExpectations { get }
}

/// What `run --script`'s `expect` lines found: the run reports each failure and exits 1, and
/// claims "every expect held" only when every one was checked.
struct ScriptExpectations {
    var checked = 0
    /// Lines the run stopped before reaching.
    var unchecked = 0
    var failures: [ExpectationFailure] = []
}

/// What became of a `ctl pulse` the event loop took.
enum PulseOutcome {
    case scheduled
    /// Hardware, or a line the board does not wire, or a role of the other kind (the
    /// emergency input is a level, not a pulse).
    case notDrivable
    /// ``PendingPulses/capacityPerLine`` pulses already wait on the line.
    case lineQueueFull
}

/// Real lines: the kernel stamps edges with CLOCK_MONOTONIC, which is the loop's clock too.
struct GpiodSource<App: ControllerApplication>: EventSource {
    let selector: GPIOChipSelector
    let clock = MonotonicClock()

    func now() -> MachineInstant { clock.now() }
    func startInstant() -> MachineInstant { clock.now() }
    var nextDeadline: MachineInstant? { nil }
    func advance(to now: MachineInstant, controller: Controller<App, GpiodChip>) throws(GPIOError) {}
    func pulse(input index: Int, at now: MachineInstant) -> PulseOutcome { .notDrivable }
    func setLevel(input index: Int, active: Bool, at now: MachineInstant) -> PulseOutcome { .notDrivable }
    func perform(plant action: App.Plant.Action, controller: Controller<App, GpiodChip>, at now: MachineInstant) -> PulseOutcome { .notDrivable }
    func unstartedPulses(at now: MachineInstant) -> [(role: RoleName, count: Int)] { [] }
    func reopen() -> GpiodChip? { try? GpiodChip.open(selector) }
    var expectations: ScriptExpectations { ScriptExpectations() }
}

/// A simulated board in real time: the chip's virtual clock follows the wall clock from the
/// start, inputs come from a scenario (`--script`) and from `ctl pulse`.
final class SimSource<App: ControllerApplication>: EventSource {
    let chip: SimChip
    let board: Board<App>
    private let inputOffsets: [RoleName: GPIOLineOffset]
    private let clock = MonotonicClock()
    private let origin: MachineInstant
    /// The script, played by the rules `simulate` plays it by (one player for both).
    private var player: ScenarioPlayer<App>
    private let scriptFile: String
    /// The `expect` lines that failed (room for all of them reserved here: the loop's thread
    /// must not allocate).
    private var failedExpectations: [ExpectationFailure] = []

    var expectations: ScriptExpectations {
        ScriptExpectations(
            checked: player.checkedExpectations, unchecked: player.expectationCount - player.checkedExpectations,
            failures: failedExpectations)
    }
    /// When the script ends (its `end`, or its last step): the daemon stops there if asked to.
    let scriptEnd: MachineInstant?
    /// When each input's line is free for a new pulse, by its index in the declaration: a
    /// `ctl pulse` on a busy line waits its turn rather than merging into the pulse in progress
    /// (a coin must never vanish). Sized from the start: an array that grows on the loop's
    /// thread allocates.
    private var lineFreeAt = [MachineInstant](repeating: .zero, count: App.inputs.count)
    /// Whether inputs change cleanly at their written times (`inputs as taken`, a recording's).
    private var inputsAsTaken = false
    /// The last instant the controller was brought to by this source: a late turn settles only
    /// what comes after it.
    private var settledThrough = MachineInstant.zero
    /// The `ctl pulse`s each line has waiting, so a stop can name the ones it drops. One made
    /// per line (not one repeated): repeated, they would share a buffer until the loop's first
    /// pulse on a line copied it.
    private var waiting = App.inputs.map { _ in PendingPulses() }
    /// Each input's line on the chip, by index; nil where the board does not wire it.
    private let lines: [GPIOLineOffset?]
    /// Each input's simulated pulse width, by index; nil for a level.
    private let pulseWidths: [Duration?]
    /// The application's model of its mechanism (the barrier's arm), driving its inputs.
    private let plant: PlantDriver<App>?

    init(board: Board<App>, chip: SimChip, inputOffsets: [RoleName: GPIOLineOffset], script: Scenario<App>?) {
        self.board = board
        self.chip = chip
        self.inputOffsets = inputOffsets
        lines = App.inputs.map { inputOffsets[$0.role] }
        pulseWidths = App.inputs.map { board.simulatedPulseWidth($0.role) }
        plant = App.Plant.drivenInputs.isEmpty ? nil : PlantDriver<App>(board: board, chip: chip, inputOffsets: inputOffsets, at: .zero)
        origin = clock.now()
        player = ScenarioPlayer(script)
        scriptFile = script?.file ?? ""
        failedExpectations.reserveCapacity(player.expectationCount)
        // Generic type metadata is made on first use, and making it allocates: made here, on
        // the starting thread, rather than on the event loop's first turns.
        _ = MemoryLayout<ScenarioPlayer<App>>.size + MemoryLayout<ScenarioStep<App>>.size + MemoryLayout<ScenarioAction<App>>.size
        _ = MemoryLayout<PlantDriver<App>?>.size
        scriptEnd = script.map { MachineInstant.zero + $0.endTime }
    }

    func now() -> MachineInstant {
        MachineInstant(nanoseconds: clock.now().nanoseconds &- origin.nanoseconds)
    }

    func startInstant() -> MachineInstant { .zero }

    /// The world before the controller starts: `0 emergency on` finds the line already active.
    func applyInitialLevels() {
        for action in player.setBeforeStart {
            if case .level(let role, _) = action, let line = inputOffsets[role] { chip.scheduleLevel(line: line, at: .zero, active: true) }
        }
        chip.advance(to: .zero)
        _ = nextDeadline
    }

    var nextDeadline: MachineInstant? {
        var next = chip.nextEventTime
        if let step = player.nextTime { next = Self.earlier(next, step) }
        if let change = plant?.nextChange { next = Self.earlier(next, change) }
        return next
    }

    private static func earlier(_ a: MachineInstant?, _ b: MachineInstant) -> MachineInstant {
        guard let a else { return b }
        return Swift.min(a, b)
    }

    /// Plays the script's steps due by `now`, each instant as `simulate` plays it (the same
    /// player): its `expect`s first, checked against everything strictly before it, then its
    /// inputs. The plant (if the application has one) is brought to each instant first, and
    /// answers what the controller wrote.
    ///
    /// A turn that comes late (a busy machine, or an emulated one, where the loop woke well after
    /// its deadline) still takes everything at its own instant, as `simulate` does: the edges,
    /// the controller's deadlines and the plant's answers due before each step are settled in
    /// order first. Without that, a request at 0.5 s and a vehicle at 1.0 s played in one late
    /// turn reached the controller together, before the plant had answered the request's
    /// motor with the arm up, and the vehicle was ignored.
    func advance(to now: MachineInstant, controller: Controller<App, SimChip>) throws(GPIOError) {
        try player.play(
            through: now,
            settleBefore: { (time, expects) throws(GPIOError) in
                try settle(before: time, controller: controller)
                guard expects else { return }
                let before = MachineInstant(nanoseconds: time.nanoseconds &- 1)
                plant?.advance(to: before)
                chip.advance(to: before)
                try controller.process(now: before)
            },
            check: { step in
                if let failure = Simulation<App>.evaluate(step, file: scriptFile, on: controller) { failedExpectations.append(failure) }
            },
            settleAt: { (time) throws(GPIOError) in
                plant?.advance(to: time)
                chip.advance(to: time)
                try controller.process(now: time)
            },
            perform: { (action, time) throws(GPIOError) in try perform(action, at: time, controller: controller) })
        try settle(before: now, controller: controller)
        plant?.advance(to: now)
        chip.advance(to: now)
        settledThrough = Swift.max(settledThrough, now)
    }

    /// Processes, in order and each at its own instant, what is due strictly before `time`: the
    /// chip's scheduled edges, the controller's deadlines (debouncing, timers) and the plant's
    /// changes. At most ``SimulatedSourceLimits/settledInstantsPerTurn`` instants a turn, so a
    /// deadline that does not move cannot hold the loop: the rest is then taken at `time`, as
    /// before.
    private func settle(before time: MachineInstant, controller: Controller<App, SimChip>) throws(GPIOError) {
        var settled = 0
        var last = settledThrough
        while settled < SimulatedSourceLimits.settledInstantsPerTurn {
            var next = time
            if let edge = chip.nextEventTime, edge < next { next = edge }
            if let deadline = controller.nextDeadline, deadline < next { next = deadline }
            if let change = plant?.nextChange, change < next { next = change }
            // Nothing due before `time`, or nothing after the last instant settled (time only
            // moves forward: what is overdue is taken at `time`).
            guard next < time, next > last else { return }
            plant?.advance(to: next)
            chip.advance(to: next)
            try controller.process(now: next)
            last = next
            settledThrough = next
            settled += 1
        }
    }

    /// The controller wrote `level` to output `role` at `time` (the chip's report, on the loop's
    /// thread): the plant hears it.
    func outputWritten(_ role: RoleName, _ level: Bool, at time: MachineInstant) {
        plant?.output(role, level, at: time)
    }

    func pulse(input index: Int, at now: MachineInstant) -> PulseOutcome {
        // A level is set, not pulsed: `ctl` sends `set` (or the condition's command) for it.
        guard let line = lines[index], let width = pulseWidths[index] else { return .notDrivable }
        waiting[index].removeStarted(by: now)
        guard waiting[index].append(Swift.max(now, lineFreeAt[index])) else { return .lineQueueFull }
        schedulePulse(input: index, line: line, at: now, width: width)
        return .scheduled
    }

    func setLevel(input index: Int, active: Bool, at now: MachineInstant) -> PulseOutcome {
        guard let line = lines[index], pulseWidths[index] == nil else { return .notDrivable }
        chip.scheduleLevel(line: line, at: Swift.max(now, lineFreeAt[index]), active: active)
        return .scheduled
    }

    func perform(plant action: App.Plant.Action, controller: Controller<App, SimChip>, at now: MachineInstant) -> PulseOutcome {
        guard plant != nil else { return .notDrivable }
        performPlant(action, at: now, controller: controller)
        return .scheduled
    }

    func unstartedPulses(at now: MachineInstant) -> [(role: RoleName, count: Int)] {
        App.inputs.indices.compactMap { index in
            waiting[index].removeStarted(by: now)
            let count = waiting[index].count
            return count > 0 ? (App.inputs[index].role, count) : nil
        }
    }

    /// A pulse on input `index`'s line at `time`, or when the one in progress there has ended
    /// and been debounced: two pulses on one line never merge into one (a coin must never
    /// vanish), whether they come from the script, `ctl pulse` or both.
    private func schedulePulse(input index: Int, line: GPIOLineOffset, at time: MachineInstant, width: Duration) {
        let start = Swift.max(time, lineFreeAt[index])
        chip.schedulePulse(
            line: line, at: start, width: width, bounceEdges: inputsAsTaken ? 0 : board.sim.bounceEdges, bounceWindow: board.sim.bounceWindow)
        lineFreeAt[index] = start + board.lineHold(App.inputs[index].role, width: width)
    }

    func reopen() -> SimChip? { chip.isGone ? nil : chip }

    /// The plant acts, and the controller's recording notes it (a replay plays it again).
    private func performPlant(_ action: App.Plant.Action, at time: MachineInstant, controller: Controller<App, SimChip>) {
        plant?.perform(action, at: time)
        controller.notePlantAction(action, at: time)
    }

    private func perform(_ action: ScenarioAction<App>, at time: MachineInstant, controller: Controller<App, SimChip>) throws(GPIOError) {
        switch action {
        case .pulse(let role, let width):
            guard let index = App.inputIndex(named: role), let width = width ?? pulseWidths[index], let line = lines[index] else { break }
            schedulePulse(input: index, line: line, at: time, width: width)
        case .level(let role, let on): chip.scheduleLevel(line: inputOffsets[role]!, at: time, active: on)
        case .command(let event): try controller.send(event, at: time)
        case .set(let key, let value):
            // The controller has handled everything up to `time` (advance(to:) above).
            guard let key = App.settings.key(named: key) else { break }
            controller.retime(key.setting(value, in: controller.settings), at: time)
        case .plant(let action):
            performPlant(action, at: time, controller: controller)
        case .inputsAsTaken:
            inputsAsTaken = true
        default: break
        }
    }
}

/// The simulated source's bounds.
enum SimulatedSourceLimits {
    /// How many instants a late turn settles before a script step (edges, deadlines, the
    /// plant's changes between two steps): far more than a second of a busy plant, few enough
    /// that a turn stays short.
    static let settledInstantsPerTurn = 10_000
}
