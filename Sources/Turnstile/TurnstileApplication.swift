import ControllerFSM
import ControllerHost

/// The turnstile, declared once for the runtime (docs/turnstile.md): its machine, how
/// its lines bind to it, its `[turnstile]` section, what it counts, what an operator may send
/// it and what must always hold. The host, simulator, daemon, store, HTTP and command line take
/// everything else from here.
public enum TurnstileApplication: ControllerApplication {
    public typealias State = TurnstileState
    public typealias Event = TurnstileEvent
    public typealias Context = TurnstileContext
    public typealias Settings = TurnstileSettings

    public static let name = "turnstile"
    public static let summary = "The coin-operated turnstile controller, on real GPIO or simulated."
    public static let builtInBoard = BuiltInBoard(text: BoardFile.defaultSimText)
    public static var table: TurnstileMachine.Table { TurnstileMachine.table }
    public static var queueCapacity: Int { TurnstileMachine.queueCapacity }

    public static let settings = SettingsDeclaration<Self>(
        section: "turnstile", defaults: .defaults,
        keys: [
            .duration("relock_timeout", \.relockTimeout, summary: "how long unlocked waits for a push before the credit expires"),
            .duration("repair_period", \.repairPeriod, summary: "how long outOfOrder lasts"),
            .duration("jam_timeout", \.jamTimeout, summary: "how long the push sensor may stay active before it is a jam"),
            .duration("alarm_pulse", \.alarmPulse, summary: "how long the alarm sounds for a forced push"),
            .choice("fail_mode", \.failMode, summary: "secure: the lock is driven locked on stop; safe: released"),
        ],
        relations: TurnstileRelations.board, simulatedRelations: TurnstileRelations.simulated)

    public static func makeContext(_ settings: TurnstileSettings) -> TurnstileContext {
        TurnstileContext(timings: TurnstileTimings(settings))
    }

    public static func apply(_ settings: TurnstileSettings, to context: inout TurnstileContext) {
        context.retime(TurnstileTimings(settings))
    }

    public static let inputs: [InputDeclaration<Self>] = [
        .pulse("coin", sends: .coin, required: true, simulatedPulse: .milliseconds(50),
               summary: "the coin acceptor's pulse output: one pulse per accepted coin"),
        .pulse("push", sends: .push, required: true, simulatedPulse: .milliseconds(150),
               heldTooLong: HeldTooLong(after: \.jamTimeout, sends: .fault, againWhen: { $0.isInService }),
               summary: "the passage sensor on the arm: one pulse per push; held active, it is a jam"),
        .pulse("service", sends: .repair, simulatedPulse: .milliseconds(100), summary: "the service key: a pulse requests a repair"),
        .condition("emergency", on: .emergencyOn, off: .emergencyOff,
                   summary: "the fire-alarm contact: a level, active for as long as the alarm lasts"),
    ]

    public static let outputs: [OutputDeclaration<Self>] = [
        OutputDeclaration("lock", required: true, initial: true, stop: { $0.failMode == .secure }, onWriteFailure: .fault,
                          summary: "the lock relay: 1 holds the arm",
                          meaning: OutputMeaning(on: "arm held", off: "arm released"),
                          requires: OutputPrecondition("a passage is paid for (credit) or an emergency frees the way", whenLevel: false) { state, c in
                              c.credit > 0 || state == .emergency
                          }) { _, c in c.outputs.lock },
        OutputDeclaration("alarm", initial: false, pulse: OutputPulse(length: \.alarmPulse) { c in
                              defer { c.outputs.alarmPulseRequested = false }
                              return c.outputs.alarmPulseRequested
                          },
                          summary: "the alarm sounder", meaning: OutputMeaning(on: "sounding", off: "quiet")) { _, c in c.outputs.alarm },
        OutputDeclaration("ready", initial: false, summary: "the ready lamp, on while in service",
                         meaning: OutputMeaning(on: "ready", off: "not ready"),
                         requires: OutputPrecondition("the coin acceptor takes coins (inhibit off)") { _, c in !c.outputs.inhibit }) { _, c in
                             c.outputs.ready
                         },
        OutputDeclaration("inhibit", initial: true, summary: "the coin acceptor's inhibit input: 1 returns coins",
                         meaning: OutputMeaning(on: "coins refused", off: "coins accepted")) { _, c in c.outputs.inhibit },
    ]

    public static let counters: [CounterDeclaration<Self>] = [
        CounterDeclaration("coins", summary: "coins accepted") { $0.counters.coins },
        CounterDeclaration("passages", summary: "paid passages") { $0.counters.passages },
        CounterDeclaration("forcedPushes", summary: "pushes on the locked arm") { $0.counters.forcedPushes },
        CounterDeclaration("expiredCredits", summary: "credit that expired unused") { $0.counters.expiredCredits },
        CounterDeclaration("faults", summary: "mechanism faults") { $0.counters.faults },
        CounterDeclaration("coinsOutOfService", summary: "coins taken while out of service") { $0.counters.coinsOutOfService },
        CounterDeclaration("repairs", summary: "repairs begun") { $0.counters.repairs },
        CounterDeclaration("freePassages", summary: "passages during an emergency") { $0.counters.freePassages },
    ]

    public static let gauges: [GaugeDeclaration<Self>] = [
        GaugeDeclaration("credit", voidedByRestart: "creditsVoidedByRestart", summary: "coins paid for passages not yet taken") { $0.credit },
    ]

    /// Each passage taken in `unlocked` may break the arm (`simulate --break-probability`).
    public static let simulatedBreakage: SimulatedBreakage<Self>? = SimulatedBreakage(
        after: { from, event in from == .unlocked && event == .push }, sends: .fault)

    public static let stateCounts: [StateCount<Self>] = [
        .entering(.emergency, counts: "emergencyOn"),
        .leaving(.emergency, counts: "emergencyOff"),
    ]

    public static let durableInvariants = [
        DurableInvariant("money", "coins", equals: ["passages", "expiredCredits", "coinsOutOfService", "creditsVoidedByRestart", "credit"],
                         labels: ["expiredCredits": "expired", "coinsOutOfService": "out of service", "creditsVoidedByRestart": "voided by restart"]),
    ]

    /// In the order the control protocol has always listed them (`status, repair, fault,
    /// emergency, events, pulse`): the wire's list follows this one.
    /// Home Assistant: a `problem` binary sensor, on while the mechanism is broken; the fire
    /// alarm's binary sensor is a `safety` one (on: unsafe).
    public static var homeAssistant: HomeAssistantHints<Self> { HomeAssistantHints(faultStates: [.broken], inputDeviceClasses: ["emergency": "safety"]) }

    public static let commands: [DirectCommand<Self>] = [
        DirectCommand(.repair, summary: "a repair, as the service key requests it"),
        DirectCommand(.fault, summary: "the mechanism reports a failure"),
        DirectCommand(.emergencyOn, summary: "declare a fire alarm"),
        DirectCommand(.emergencyOff, summary: "withdraw a declared fire alarm (the contact may still hold it)"),
    ]

    public static let invariants: [Invariant<Self>] = [
        Invariant("the relay is released exactly in unlocked and emergency") { state, c in
            c.outputs.lock == !(state == .unlocked || state == .emergency)
        },
        Invariant("coins == passages + expiredCredits + coinsOutOfService + credit") { _, c in
            c.counters.coins == c.counters.passages + c.counters.expiredCredits + c.counters.coinsOutOfService + c.credit
        },
        Invariant("credit is 0 outside unlocked") { state, c in state == .unlocked || c.credit == 0 },
    ]
}

extension TurnstileTimings {
    init(_ settings: TurnstileSettings) {
        self.init(relockTimeout: settings.relockTimeout, repairPeriod: settings.repairPeriod)
    }
}

/// A board file for the turnstile.
public typealias BoardFile = Board<TurnstileApplication>

/// The turnstile on a GPIO chip.
public typealias TurnstileController<Chip: GPIOChip> = Controller<TurnstileApplication, Chip>
