import ControllerFSM

/// The daemon's own life, as a machine on the same runtime as the turnstile: one block per
/// phase, and an event that a phase does not answer is ignored (a second SIGTERM while draining,
/// a lost store while stopping).
///
/// ```
/// starting ──linesRequested──▶ selfTest ──selfTestPassed──▶ running ⇄ degraded
///     │                          │                            │          │
///     └──────stopRequested───────┴─selfTestFailed─▶ stopped ◀─drained─ draining ◀─stopRequested─┘
/// ```
public enum DaemonPhase: Int, MachineSymbol {
    /// Reading the board, opening the store and the chip.
    case starting
    /// Every board line requested, the relay held locked, the inputs read.
    case selfTest
    /// Taking events.
    case running
    /// Running without something it needs (the chip is gone, or the store cannot write), or
    /// with a machine that did not settle (its outputs held at their fail-safe levels): the
    /// relay stays at the safest level the daemon can hold, and status says why.
    case degraded
    /// Told to stop: finishing the event in hand, driving the fail-mode level, making every
    /// count durable, releasing the lines.
    case draining
    case stopped
}

public enum DaemonLifecycleEvent: Int, MachineSymbol {
    case linesRequested
    case selfTestPassed
    case selfTestFailed
    case chipLost
    case storeLost
    /// The count store writes again after `storeLost` (the disk has room again): what waited
    /// in memory is committed.
    case storeRecovered
    case recovered
    /// A step of the controller's machine reached a bound and was ended
    /// (``DaemonLifecycleContext/unsettledMachine`` says what repeated). Nothing heals it but a
    /// restart with a fixed definition: the daemon stays degraded until then.
    case machineUnsettled
    case stopRequested
    case drained
}

/// Why the daemon is degraded, kept while it is.
public struct DaemonLifecycleContext: Sendable {
    public var chipLost = false
    public var storeLost = false
    /// What the controller's machine repeated in its last step that did not settle, once one
    /// did (``DaemonLifecycleEvent/machineUnsettled``).
    public var unsettledMachine: String?

    public init() {}

    /// Whether nothing keeps the daemon degraded.
    public var isWhole: Bool { !chipLost && !storeLost && unsettledMachine == nil }

    public var degradedReason: String? {
        var reasons: [String] = []
        if let unsettledMachine { reasons.append(unsettledMachine) }
        switch (chipLost, storeLost) {
        case (false, false): break
        case (true, false): reasons.append("the GPIO chip is gone; retrying")
        case (false, true): reasons.append("the count store cannot write; counts are not being made durable")
        case (true, true): reasons.append("the GPIO chip is gone and the count store cannot write")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }
}

public enum DaemonLifecycle {
    public typealias Machine = StateMachine<DaemonPhase, DaemonLifecycleEvent, DaemonLifecycleContext>

    public static let table: TransitionTable<DaemonPhase, DaemonLifecycleEvent, DaemonLifecycleContext> = {
        do {
            return try definition().compile()
        } catch {
            fatalError("the daemon lifecycle's own definition is invalid: \(error)")
        }
    }()

    /// Room for events the lifecycle's actions send during one dispatch: it sends none; the
    /// smallest queue that still leaves room for one to be added.
    public static let queueCapacity = 4

    /// A started machine in `starting`.
    public static func makeMachine() -> Machine {
        var machine = Machine(table: table, context: DaemonLifecycleContext(), queueCapacity: queueCapacity)
        machine.start(at: .zero)
        return machine
    }

    public static func definition() -> MachineDefinition<DaemonPhase, DaemonLifecycleEvent, DaemonLifecycleContext> {
        var definition = MachineDefinition<DaemonPhase, DaemonLifecycleEvent, DaemonLifecycleContext>(initial: .starting)

        definition.state(.starting) { s in
            s.on(.linesRequested, to: .selfTest)
            s.on(.stopRequested, to: .stopped)
            s.on(.selfTestFailed, to: .stopped)
        }

        definition.state(.selfTest) { s in
            s.on(.selfTestPassed, to: .running)
            s.on(.selfTestFailed, to: .stopped)
            s.on(.stopRequested, to: .draining)
        }

        definition.state(.running) { s in
            s.on(.chipLost, to: .degraded) { c, _ in c.chipLost = true }
            s.on(.storeLost, to: .degraded) { c, _ in c.storeLost = true }
            s.on(.machineUnsettled, to: .degraded)
            s.on(.stopRequested, to: .draining)
        }

        definition.state(.degraded) { s in
            s.on(.chipLost) { c, _ in c.chipLost = true }
            s.on(.storeLost) { c, _ in c.storeLost = true }
            // The chip and the store each come back by themselves: the chip when it is found
            // again, the store when a retried write commits. The daemon runs again once nothing
            // is missing; a machine that did not settle keeps it degraded until a restart.
            s.on(.recovered, when: Guard("nothing else missing") { !$0.storeLost && $0.unsettledMachine == nil }, to: .running) { c, _ in c.chipLost = false }
            s.on(.recovered) { c, _ in c.chipLost = false }
            s.on(.storeRecovered, when: Guard("nothing else missing") { !$0.chipLost && $0.unsettledMachine == nil }, to: .running) { c, _ in c.storeLost = false }
            s.on(.storeRecovered) { c, _ in c.storeLost = false }
            s.on(.machineUnsettled) { _, _ in }
            s.on(.stopRequested, to: .draining)
        }

        definition.state(.draining) { s in
            s.on(.drained, to: .stopped)
        }

        definition.state(.stopped) { _ in }

        return definition
    }
}
