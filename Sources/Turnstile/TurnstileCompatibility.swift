import ControllerFSM
import ControllerHost

// The turnstile's roles and settings by their own types, over the generic board and
// controller: the turnstile's code reads `board.inputs[.coin]`, `board.turnstile` and
// `controller.output(.lock)` as it always did.

extension OutputRole {
    /// The role called `name`, which a turnstile's controller wrote.
    package init(_ name: RoleName) { self.init(rawValue: name.rawValue)! }
}

extension InputRole {
    /// The role's name in the declaration.
    package var name: RoleName { RoleName(rawValue) }
}

extension OutputRole {
    /// The role's name in the declaration.
    package var name: RoleName { RoleName(rawValue) }
}

extension Board where App == TurnstileApplication {
    public typealias TurnstileSettings = Turnstile.TurnstileSettings

    /// The `[turnstile]` section.
    package var turnstile: TurnstileSettings {
        get { settings }
        set { settings = newValue }
    }

    package func lineHold(_ role: InputRole, width: Duration?) -> Duration { lineHold(role.name, width: width) }

    package func simulatedPulseWidth(_ role: InputRole) -> Duration? { simulatedPulseWidth(role.name) }
}

extension Board.SimSettings where App == TurnstileApplication {
    /// How long a coin pulse holds the coin line active.
    public var coinPulse: Duration {
        get { pulse("coin")! }
        set { setPulse("coin", newValue) }
    }

    /// How long one passage holds the push line active.
    public var pushPulse: Duration {
        get { pulse("push")! }
        set { setPulse("push", newValue) }
    }

    /// How long a repair request holds the service line active.
    package var servicePulse: Duration {
        get { pulse("service")! }
        set { setPulse("service", newValue) }
    }
}

extension Controller where App == TurnstileApplication {
    /// The credit standing.
    package var credit: Int { context.credit }

    /// The counters, with `ignored` taken from the machine's statistics.
    public var counters: TurnstileCounters {
        var counters = context.counters
        counters.ignored = ignoredCount
        return counters
    }

    /// Where the lock goes when the daemon stops; a reload may change it.
    package var failMode: FailMode { settings.failMode }

    /// Drives the lock to the board's `fail_mode` level (the turnstile's only stop level).
    package func driveFailMode(at now: MachineInstant) { driveStopLevels(at: now) }
}

extension LedgerEntry where App == TurnstileApplication {
    /// The credit after the step.
    package var credit: Int { gauges[0] }

    package init(time: MachineInstant, state: TurnstileState, credit: Int, counters: TurnstileCounters,
                 cause: ControllerInput<TurnstileApplication>?) {
        var gauges = CounterValues(count: 1)
        gauges[0] = credit
        self.init(time: time, state: state, gauges: gauges, counters: CounterValues(counters), cause: cause)
    }

    /// The counters after the step, as the turnstile names them.
    package var turnstileCounters: TurnstileCounters { TurnstileCounters(counters) }
}

extension CounterValues {
    /// The turnstile's counters in declaration order (`ignored` last).
    package init(_ counters: TurnstileCounters) {
        self.init(count: counters.all.count)
        for (index, counter) in counters.all.enumerated() { self[index] = counter.value }
    }
}

extension TurnstileCounters {
    /// The counters from their values in declaration order (`ignored` last).
    package init(_ values: CounterValues) {
        self.init()
        coins = values[0]
        passages = values[1]
        forcedPushes = values[2]
        expiredCredits = values[3]
        faults = values[4]
        coinsOutOfService = values[5]
        repairs = values[6]
        freePassages = values[7]
        ignored = values[8]
    }
}

extension RoleName {
    package static let coin: RoleName = "coin"
    package static let push: RoleName = "push"
    package static let service: RoleName = "service"
    package static let emergency: RoleName = "emergency"
    package static let lock: RoleName = "lock"
    package static let alarm: RoleName = "alarm"
    package static let ready: RoleName = "ready"
    package static let inhibit: RoleName = "inhibit"
}
