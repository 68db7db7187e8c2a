import ControllerFSM
import ControllerHost

/// Where the daemon's threads leave what status needs, each its own part, and where readers
/// (HTTP, the control socket, systemd) take a consistent ``DaemonSnapshot``. Its state, counter
/// and gauge names are `App`'s declaration's.
///
/// The event loop publishes live figures with ``publishLoop(state:events:lostEdges:outputOverrides:overrideCodes:conditionsHeldByLine:outputLevels:wiredOutputs:activeStates:inputsOn:unsettledSteps:droppedSends:)`` — a few
/// stores under a lock, no allocation (the state is kept as its index, named only when a
/// snapshot is taken); counts and gauges come only from ``publishDurable(counters:gauges:)``,
/// called after they were made durable.
public final class StatusHub<App: ControllerApplication>: Sendable {
    /// How many transitions `/status` and `ctl events` show.
    public static var recentTransitionCount: Int { 20 }

    private let parts: Guarded<StatusParts>
    /// Every state's name, by index: named once here so a snapshot takes a name, not makes one.
    private let stateNames: [String]
    /// By state: the superstates around it, innermost first (computed once: the snapshot is
    /// taken under the lock).
    private let superstateNames: [[String]]
    private let started: MachineInstant
    private let clock: MonotonicClock
    public let board: String
    public let chip: String
    private let inbox: CommandInbox?
    /// Noted whenever something the reporter or the site's health tells changes (see
    /// ``StatusChanges``): they sleep on it while the daemon is idle.
    public let changes: StatusChanges

    /// Starts in `App`'s initial state, with every declared counter and gauge at 0.
    public init(
        board: String, chip: String, inbox: CommandInbox?, clock: MonotonicClock = MonotonicClock(), changes: StatusChanges = StatusChanges()
    ) {
        for gauge in App.gauges {
            precondition(
                !DaemonSnapshot.isField(gauge.name),
                "\(App.name)'s gauge \(gauge.name) has the name of a field of the daemon's status; rename the gauge in its declaration")
        }
        self.board = board
        self.chip = chip
        self.inbox = inbox
        self.clock = clock
        self.changes = changes
        started = clock.now()
        stateNames = App.State.allCases.map(\.name)
        superstateNames = App.State.allCases.map { App.table.configuration(of: $0).dropFirst().map(\.name) }
        parts = Guarded(StatusParts(
            state: App.table.startState.rawValue,
            gauges: Dictionary(App.gauges.map { ($0.name, 0) }) { first, _ in first },
            counters: Dictionary(App.counterNames.map { ($0, 0) }) { first, _ in first }))
    }

    /// Where publishing to the site's broker stands (`run --mqtt`).
    public func publishSite(_ site: SiteSnapshot) {
        let changed = parts.withLock { parts in
            defer { parts.site = site }
            return parts.site != site
        }
        if changed { changes.note() }
    }

    public func publishPhase(_ phase: DaemonPhase, degradedReason: String?) {
        parts.withLock {
            $0.phase = phase
            $0.degradedReason = degradedReason
        }
        changes.note()
    }

    /// From the event loop, after each turn. When something the reporter or the site's health
    /// tells changed (an edge lost, an output held, an input's level, a refusal), ``changes``
    /// notes it; an idle turn only compares.
    /// - Parameters:
    ///   - state: the machine's state (the innermost one).
    ///   - events: events dispatched since start.
    ///   - lostEdges: input edges the kernel lost before they were read.
    ///   - outputOverrides: episodes of an output held at a level the machine did not ask for
    ///     (`Controller/outputOverrides`).
    ///   - overrideCodes: why each output is held now (`Controller/overrideCodes`).
    ///   - conditionsHeldByLine: the condition inputs whose line holds them now
    ///     (`Controller/conditionsHeldByLine`): what a command's reply says it cannot end.
    ///   - outputLevels: each output's level, bit `index` (`Controller/outputLevels`).
    ///   - wiredOutputs: which outputs the board wires (`Controller/wiredOutputs`).
    ///   - activeStates: every active innermost state as bits, by raw value
    ///     (`Controller/activeStateBits`).
    ///   - inputsOn: the level and condition inputs on now (`Controller/inputsOn`).
    ///   - unsettledSteps: the machine's steps that did not settle (`Controller/unsettledSteps`).
    ///   - droppedSends: events its work sent to a full queue, lost (`MachineStatistics.droppedSends`).
    public func publishLoop(
        state: App.State, events: Int, lostEdges: Int, outputOverrides: Int = 0, overrideCodes: UInt64 = 0, conditionsHeldByLine: UInt64 = 0,
        outputLevels: UInt64 = 0, wiredOutputs: UInt64 = 0, activeStates: StateBits = StateBits(), inputsOn: UInt64 = 0,
        unsettledSteps: Int = 0, droppedSends: Int = 0
    ) {
        let index = state.rawValue
        let refused = inbox?.refusedCount ?? 0
        let changed = parts.withLock {
            // What a watcher tells (see `StatusChanges`); the state is not among them: every
            // step is committed, and the commit wakes the site's publisher.
            let changed = $0.inputsOn != inputsOn || $0.unsettledSteps != unsettledSteps || $0.droppedSends != droppedSends
                || $0.wiredOutputs != wiredOutputs || $0.lostEdges != lostEdges || $0.outputOverrides != outputOverrides
                || $0.overrideCodes != overrideCodes || $0.refusedCommands != refused
            $0.refusedCommands = refused
            $0.inputsOn = inputsOn
            $0.unsettledSteps = unsettledSteps
            $0.droppedSends = droppedSends
            $0.activeStates = activeStates
            $0.outputLevels = outputLevels
            $0.wiredOutputs = wiredOutputs
            $0.conditionsHeldByLine = conditionsHeldByLine
            $0.state = index
            $0.events = events
            $0.lostEdges = lostEdges
            $0.outputOverrides = outputOverrides
            $0.overrideCodes = overrideCodes
            return changed
        }
        if changed { changes.note() }
    }

    /// Counts and gauges that are durable now (committed to the store, or with no store, seen
    /// by the drain), by name.
    public func publishDurable(counters: [String: Int], gauges: [String: Int]) {
        parts.withLock {
            $0.counters = counters
            $0.gauges = gauges
        }
    }

    /// With no store: the counts and gauges after `step`, the last the ledger drain saw.
    public func publishDurable(after step: LedgerEntry<App>) {
        var counters: [String: Int] = [:]
        for (index, name) in App.counterNames.enumerated() { counters[name] = step.counters[index] }
        var gauges: [String: Int] = [:]
        for (index, gauge) in App.gauges.enumerated() { gauges[gauge.name] = step.gauges[index] }
        publishDurable(counters: counters, gauges: gauges)
    }

    /// From the reporting thread: transitions it drained, and records lost so far.
    public func publishTransitions(_ transitions: [TransitionSummary], traceLosses: Int) {
        let lost = parts.withLock { parts in
            parts.recent.append(contentsOf: transitions)
            if parts.recent.count > Self.recentTransitionCount {
                parts.recent.removeFirst(parts.recent.count - Self.recentTransitionCount)
            }
            defer { parts.traceLosses = traceLosses }
            return parts.traceLosses != traceLosses
        }
        if lost { changes.note() }
    }

    /// Seconds since the daemon started.
    public var uptimeSeconds: Double { clock.now().duration(since: started).secondsValue }

    public var phase: DaemonPhase { parts.withLock { $0.phase } }

    /// Whether the line of the condition input at `index` (in `ControllerApplication/inputs`)
    /// held its condition when the loop last published.
    public func conditionIsHeldByLine(_ index: Int) -> Bool {
        index < 64 && parts.withLock { $0.conditionsHeldByLine & (1 << UInt64(index)) != 0 }
    }

    /// The machine's state when the loop last published, by name.
    public var stateName: String { parts.withLock { stateNames[$0.state] } }

    /// Each level and condition input by role, on or off, when the loop last published; empty
    /// for an application with pulses alone.
    public var inputLevels: [String: Bool] { Self.levels(parts.withLock { $0.inputsOn }) }

    private static func levels(_ inputsOn: UInt64) -> [String: Bool] {
        var levels: [String: Bool] = [:]
        for (index, input) in App.inputs.enumerated() where index < 64 && input.binding.isLevel {
            levels[input.role.rawValue] = inputsOn & (1 << UInt64(index)) != 0
        }
        return levels
    }

    public func snapshot() -> DaemonSnapshot {
        let uptime = uptimeSeconds
        let depth = inbox?.depth ?? 0
        let dropped = inbox?.refusedCount ?? 0
        return parts.withLock { parts in
            var held: [String: String] = [:]
            var outputs: [OutputStatus] = []
            for (index, reason) in OutputOverride.decode(parts.overrideCodes, outputs: App.outputs.count).enumerated() {
                let output = App.outputs[index]
                if reason != .none { held[output.role.rawValue] = reason.description }
                guard index < 64, parts.wiredOutputs & (1 << UInt64(index)) != 0 else { continue }
                let level = parts.outputLevels & (1 << UInt64(index)) != 0
                outputs.append(OutputStatus(
                    name: output.role.rawValue, level: level ? 1 : 0, meaning: output.meaning?.callsLevel(level),
                    held: reason == .none ? nil : reason.description))
            }
            let levels = Self.levels(parts.inputsOn)
            let alsoActive = stateNames.indices.filter { $0 != parts.state && parts.activeStates.contains($0) }
            // The superstates around every active state: the first region's, then those around
            // the other regions' states not named yet (the parallel state is around them all).
            var superstates = superstateNames[parts.state]
            for other in alsoActive {
                for name in superstateNames[other] where !superstates.contains(name) { superstates.append(name) }
            }
            return DaemonSnapshot(
                phase: parts.phase.name, degradedReason: parts.degradedReason, state: stateNames[parts.state],
                gauges: parts.gauges, counters: parts.counters, uptimeSeconds: uptime, board: board, chip: chip,
                events: parts.events, queueDepth: depth, droppedCommands: dropped, lostEdges: parts.lostEdges,
                traceLosses: parts.traceLosses, lastTransitions: parts.recent, site: parts.site,
                outputOverrides: parts.outputOverrides, heldOutputs: held, superstates: superstates, outputs: outputs,
                alsoActive: alsoActive.map { stateNames[$0] },
                inputs: levels.isEmpty ? nil : levels, unsettledSteps: parts.unsettledSteps, droppedSends: parts.droppedSends)
        }
    }
}

extension Duration {
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// What a ``StatusHub`` holds under its lock. Outside the generic hub, so its type is known when
/// the module is compiled: the event loop's `publishLoop` then makes no type metadata at run time.
private struct StatusParts {
    var phase = DaemonPhase.starting
    var degradedReason: String?
    /// The state's index in the application's `State.allCases` (its raw value).
    var state: Int
    var events = 0
    var lostEdges = 0
    var unsettledSteps = 0
    var droppedSends = 0
    var outputOverrides = 0
    var overrideCodes: UInt64 = 0
    var conditionsHeldByLine: UInt64 = 0
    var inputsOn: UInt64 = 0
    var outputLevels: UInt64 = 0
    /// With parallel regions, every active innermost state as bits (by raw value).
    var activeStates = StateBits()
    var wiredOutputs: UInt64 = 0
    /// The inbox's refusals when the loop last published: a change is noted (health tells them).
    var refusedCommands = 0
    var gauges: [String: Int]
    var counters: [String: Int]
    var traceLosses = 0
    var recent: [TransitionSummary] = []
    var site: SiteSnapshot?
}
