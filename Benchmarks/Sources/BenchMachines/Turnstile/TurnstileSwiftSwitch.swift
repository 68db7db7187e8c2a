import Turnstile

/// The turnstile as a hand-written Swift `switch`: a switch on the state, inside it a switch on
/// the event, entry and exit work called by hand. The same rows as docs/turnstile.md's table and the same
/// work as `TurnstileMachine`.
struct TurnstileSwiftSwitch {
    private(set) var state = TurnstileState.locked
    private var model = TurnstileModel()

    init() {
        enterLocked()
    }

    var snapshot: TurnstileSnapshot { model.snapshot(state: state) }

    mutating func send(_ event: TurnstileEvent) {
        // A due timer expires first, as in the runtime; never in the benchmark, whose events all
        // carry one time (expiries are `timeout` events in the stream).
        if model.timerArmed && model.timerDeadline <= model.now {
            model.timerArmed = false
            dispatch(.timeout)
        }
        dispatch(event)
    }

    private mutating func dispatch(_ event: TurnstileEvent) {
        switch state {
        case .locked:
            switch event {
            case .coin:
                model.counters.coins += 1
                model.credit = 1
                enterUnlocked()
            case .push:
                model.counters.forcedPushes += 1
                model.outputs.alarmPulseRequested = true
            case .fault:
                breakDown()
            case .repair:
                beginRepair()
            case .emergencyOn:
                interrupt()
            case .timeout, .emergencyOff:
                model.counters.ignored += 1
            }
        case .unlocked:
            switch event {
            case .coin:
                model.counters.coins += 1
                model.credit += 1
                model.startTimer(after: model.relockTimeout)
            case .push where model.credit > 1:
                model.counters.passages += 1
                model.credit -= 1
                model.startTimer(after: model.relockTimeout)
            case .push where model.credit == 1:
                model.timerArmed = false
                model.counters.passages += 1
                model.credit = 0
                enterLocked()
            case .timeout:
                model.timerArmed = false
                model.expireCredit()
                enterLocked()
            case .fault:
                model.timerArmed = false
                breakDown()
            case .repair:
                model.timerArmed = false
                beginRepair()
            case .emergencyOn:
                model.timerArmed = false
                interrupt()
            case .push, .emergencyOff:
                model.counters.ignored += 1
            }
        case .broken:
            switch event {
            case .coin:
                model.takeCoinOutOfService()
            case .repair:
                model.outputs.alarm = false
                beginRepair()
            case .emergencyOn:
                model.outputs.alarm = false
                interrupt()
            case .push, .fault, .timeout, .emergencyOff:
                model.counters.ignored += 1
            }
        case .outOfOrder:
            switch event {
            case .coin:
                model.takeCoinOutOfService()
            case .timeout:
                model.timerArmed = false
                enterLocked()
            case .emergencyOn:
                model.timerArmed = false
                interrupt()
            case .push, .fault, .repair, .emergencyOff:
                model.counters.ignored += 1
            }
        case .emergency:
            switch event {
            case .push:
                model.counters.freePassages += 1
            case .coin:
                model.takeCoinOutOfService()
            case .emergencyOff:
                if model.stateBeforeEmergency == .locked || model.stateBeforeEmergency == .unlocked {
                    enterLocked()
                } else {
                    enterBroken()
                }
            case .fault, .repair, .timeout, .emergencyOn:
                model.counters.ignored += 1
            }
        case .operating, .inService, .outOfService, .resume:
            // The application's superstates and history: never the state of this flat switch.
            preconditionFailure("the flat switch is never in \(state)")
        }
    }

    // Actions shared by several states' rows (the source state's exit work is done by the caller).

    private mutating func breakDown() {
        model.counters.faults += 1
        model.expireCredit()
        enterBroken()
    }

    private mutating func beginRepair() {
        model.counters.repairs += 1
        model.expireCredit()
        enterOutOfOrder()
    }

    private mutating func interrupt() {
        model.expireCredit()
        model.stateBeforeEmergency = state
        state = .emergency
        model.setOutputs(lock: false, ready: false, inhibit: true)
    }

    // Entry work.

    private mutating func enterLocked() {
        state = .locked
        model.setOutputs(lock: true, ready: true, inhibit: false)
    }

    private mutating func enterUnlocked() {
        state = .unlocked
        model.setOutputs(lock: false, ready: true, inhibit: false)
        model.startTimer(after: model.relockTimeout)
    }

    private mutating func enterBroken() {
        state = .broken
        model.setOutputs(lock: true, ready: false, inhibit: true)
        model.outputs.alarm = true
    }

    private mutating func enterOutOfOrder() {
        state = .outOfOrder
        model.setOutputs(lock: true, ready: false, inhibit: true)
        model.startTimer(after: model.repairPeriod)
    }
}
