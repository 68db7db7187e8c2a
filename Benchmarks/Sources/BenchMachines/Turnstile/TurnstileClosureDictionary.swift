import Turnstile

/// The turnstile on the closure-dictionary baseline machine: docs/turnstile.md's table, the same rows,
/// guards and entry/exit work as `TurnstileMachine`.
struct TurnstileClosureDictionary {
    private let machine: ClosureDictionaryMachine<TurnstileState, TurnstileEvent, TurnstileModel>

    init() {
        let m = ClosureDictionaryMachine<TurnstileState, TurnstileEvent, TurnstileModel>(
            initial: .locked, context: TurnstileModel())
        let breakDown: (inout TurnstileModel, TurnstileState) -> Void = { c, _ in
            c.counters.faults += 1
            c.expireCredit()
        }
        let beginRepair: (inout TurnstileModel, TurnstileState) -> Void = { c, _ in
            c.counters.repairs += 1
            c.expireCredit()
        }
        let interrupt: (inout TurnstileModel, TurnstileState) -> Void = { c, state in
            c.expireCredit()
            c.stateBeforeEmergency = state
        }
        let cancelTimer: (inout TurnstileModel, TurnstileState) -> Void = { c, _ in c.timerArmed = false }

        m.onEntry(.locked) { c, _ in c.setOutputs(lock: true, ready: true, inhibit: false) }
        m.on(.coin, in: .locked, to: .unlocked) { c, _ in
            c.counters.coins += 1
            c.credit = 1
        }
        m.on(.push, in: .locked) { c, _ in
            c.counters.forcedPushes += 1
            c.outputs.alarmPulseRequested = true
        }
        m.on(.fault, in: .locked, to: .broken, breakDown)
        m.on(.repair, in: .locked, to: .outOfOrder, beginRepair)
        m.on(.emergencyOn, in: .locked, to: .emergency, interrupt)

        m.onEntry(.unlocked) { c, _ in
            c.setOutputs(lock: false, ready: true, inhibit: false)
            c.startTimer(after: c.relockTimeout)
        }
        m.onExit(.unlocked, cancelTimer)
        m.on(.coin, in: .unlocked) { c, _ in
            c.counters.coins += 1
            c.credit += 1
            c.startTimer(after: c.relockTimeout)
        }
        m.on(.push, in: .unlocked, when: { $0.credit > 1 }) { c, _ in
            c.counters.passages += 1
            c.credit -= 1
            c.startTimer(after: c.relockTimeout)
        }
        m.on(.push, in: .unlocked, when: { $0.credit == 1 }, to: .locked) { c, _ in
            c.counters.passages += 1
            c.credit = 0
        }
        m.on(.timeout, in: .unlocked, to: .locked) { c, _ in c.expireCredit() }
        m.on(.fault, in: .unlocked, to: .broken, breakDown)
        m.on(.repair, in: .unlocked, to: .outOfOrder, beginRepair)
        m.on(.emergencyOn, in: .unlocked, to: .emergency, interrupt)

        m.onEntry(.broken) { c, _ in
            c.setOutputs(lock: true, ready: false, inhibit: true)
            c.outputs.alarm = true
        }
        m.onExit(.broken) { c, _ in c.outputs.alarm = false }
        m.on(.coin, in: .broken) { c, _ in c.takeCoinOutOfService() }
        m.on(.repair, in: .broken, to: .outOfOrder, beginRepair)
        m.on(.emergencyOn, in: .broken, to: .emergency, interrupt)

        m.onEntry(.outOfOrder) { c, _ in
            c.setOutputs(lock: true, ready: false, inhibit: true)
            c.startTimer(after: c.repairPeriod)
        }
        m.onExit(.outOfOrder, cancelTimer)
        m.on(.coin, in: .outOfOrder) { c, _ in c.takeCoinOutOfService() }
        m.on(.timeout, in: .outOfOrder, to: .locked)
        m.on(.emergencyOn, in: .outOfOrder, to: .emergency, interrupt)

        m.onEntry(.emergency) { c, _ in c.setOutputs(lock: false, ready: false, inhibit: true) }
        m.on(.push, in: .emergency) { c, _ in c.counters.freePassages += 1 }
        m.on(.coin, in: .emergency) { c, _ in c.takeCoinOutOfService() }
        m.on(.emergencyOff, in: .emergency, when: { $0.stateBeforeEmergency.isInService }, to: .locked)
        m.on(.emergencyOff, in: .emergency, when: { !$0.stateBeforeEmergency.isInService }, to: .broken)

        m.start()
        machine = m
    }

    var snapshot: TurnstileSnapshot {
        var snapshot = machine.context.snapshot(state: machine.state)
        snapshot.counters.ignored = machine.ignored
        return snapshot
    }

    func send(_ event: TurnstileEvent) {
        // A due timer expires first, as in the runtime (never in the benchmark: see
        // TurnstileSwiftSwitch.send).
        if machine.context.timerArmed && machine.context.timerDeadline <= machine.context.now {
            machine.context.timerArmed = false
            machine.send(.timeout)
        }
        machine.send(event)
    }
}

extension TurnstileState {
    /// `locked` or `unlocked`: an emergency in these states ends in `locked`.
    var isInService: Bool { self == .locked || self == .unlocked }
}
