import ControllerFSM
import ControllerHost
import Turnstile

// The generic controller's values as the turnstile names them, for the tests that read a
// turnstile's counters, credit and lines by name: the runtime keeps counters and gauges as
// `CounterValues` in declaration order and lines by `RoleName`, and the turnstile itself needs
// none of these names.

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

extension Controller where App == TurnstileApplication {
    /// The credit standing.
    package var credit: Int { context.credit }

    /// The counters, `ignored` (which the machine counts, not the context) included.
    package var counters: TurnstileCounters { TurnstileCounters(counterValues) }
}

extension LedgerEntry where App == TurnstileApplication {
    /// The credit after the step (the turnstile's one gauge).
    package var credit: Int { gauges[0] }

    /// The counters after the step, as the turnstile names them.
    package var turnstileCounters: TurnstileCounters { TurnstileCounters(counters) }

    package init(time: MachineInstant, state: TurnstileState, credit: Int, counters: TurnstileCounters,
                 cause: ControllerInput<TurnstileApplication>?) {
        var gauges = CounterValues(count: 1)
        gauges[0] = credit
        self.init(time: time, state: state, gauges: gauges, counters: CounterValues(counters), cause: cause)
    }
}
