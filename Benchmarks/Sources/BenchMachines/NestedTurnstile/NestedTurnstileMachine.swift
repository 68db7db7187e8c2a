import ControllerFSM
import Turnstile

/// The turnstile with superstates, three levels, on ControllerFSM: the fire alarm answered once
/// by `operating`, fault and repair once by `inService`, a coin out of service once by
/// `outOfService`. It does the turnstile's work row for row (the same counters, outputs, timer
/// and ignored events on the same stream), so it is compared with the flat C switch.
///
///     operating                      emergencyOn -> emergency
///       inService (initial locked)   fault -> broken, repair -> outOfOrder
///         locked, unlocked
///       outOfService                 coin taken out of service
///         broken, outOfOrder
///     emergency
public enum NestedTurnstileState: Int, MachineSymbol {
    case operating, inService, locked, unlocked, outOfService, broken, outOfOrder, emergency

    /// The flat turnstile's state of an innermost one.
    var flat: TurnstileState {
        switch self {
        case .locked: .locked
        case .unlocked: .unlocked
        case .broken: .broken
        case .outOfOrder: .outOfOrder
        default: .emergency
        }
    }
}

enum NestedTurnstileTimer: Int, MachineTimer { case state }

struct NestedTurnstileContext {
    var counters = TurnstileCounters()
    var credit = 0
    var stateBeforeEmergency = TurnstileState.locked
    var outputs = TurnstileOutputs()
    let relockNanoseconds: Int64 = 5_000_000_000
    let repairNanoseconds: Int64 = 5_000_000_000

    mutating func setOutputs(lock: Bool, ready: Bool, inhibit: Bool) {
        outputs.lock = lock
        outputs.ready = ready
        outputs.inhibit = inhibit
    }

    mutating func expireCredit() {
        counters.expiredCredits += credit
        credit = 0
    }
}

enum NestedTurnstileMachine {
    typealias Definition = MachineDefinition<NestedTurnstileState, TurnstileEvent, NestedTurnstileContext>

    static let table: TransitionTable<NestedTurnstileState, TurnstileEvent, NestedTurnstileContext> = {
        do {
            return try definition().compile()
        } catch {
            fatalError("the nested turnstile's definition is invalid: \(error)")
        }
    }()

    static func definition() -> Definition {
        var definition = Definition(initial: .operating)
        definition.state(.operating) { s in
            s.initial(.inService)
            s.on(.emergencyOn, to: .emergency) { c, fx in
                c.expireCredit()
                c.stateBeforeEmergency = fx.state.flat
            }
        }
        definition.state(.inService, in: .operating) { s in
            s.initial(.locked)
            s.on(.fault, to: .broken) { c, _ in c.counters.faults += 1; c.expireCredit() }
            s.on(.repair, to: .outOfOrder) { c, _ in c.counters.repairs += 1; c.expireCredit() }
        }
        definition.state(.locked, in: .inService) { s in
            s.onEntry { c, _ in c.setOutputs(lock: true, ready: true, inhibit: false) }
            s.on(.coin, to: .unlocked) { c, _ in
                c.counters.coins += 1
                c.credit = 1
            }
            s.on(.push) { c, _ in
                c.counters.forcedPushes += 1
                c.outputs.alarmPulseRequested = true
            }
        }
        definition.state(.unlocked, in: .inService) { s in
            s.onEntry { c, fx in
                c.setOutputs(lock: false, ready: true, inhibit: false)
                fx.startTimer(NestedTurnstileTimer.state, afterNanoseconds: c.relockNanoseconds, sending: .timeout)
            }
            s.onExit { _, fx in fx.cancelTimer(NestedTurnstileTimer.state) }
            s.on(.coin) { c, fx in
                c.counters.coins += 1
                c.credit += 1
                fx.startTimer(NestedTurnstileTimer.state, afterNanoseconds: c.relockNanoseconds, sending: .timeout)
            }
            s.on(.push, when: Guard("credit > 1") { $0.credit > 1 }) { c, fx in
                c.counters.passages += 1
                c.credit -= 1
                fx.startTimer(NestedTurnstileTimer.state, afterNanoseconds: c.relockNanoseconds, sending: .timeout)
            }
            s.on(.push, when: Guard("credit == 1") { $0.credit == 1 }, to: .locked) { c, _ in
                c.counters.passages += 1
                c.credit = 0
            }
            s.on(.timeout, to: .locked) { c, _ in c.expireCredit() }
        }
        definition.state(.outOfService, in: .operating) { s in
            s.initial(.broken)
            s.on(.coin) { c, _ in
                c.counters.coins += 1
                c.counters.coinsOutOfService += 1
            }
        }
        definition.state(.broken, in: .outOfService) { s in
            s.onEntry { c, _ in
                c.setOutputs(lock: true, ready: false, inhibit: true)
                c.outputs.alarm = true
            }
            s.onExit { c, _ in c.outputs.alarm = false }
            s.on(.repair, to: .outOfOrder) { c, _ in c.counters.repairs += 1; c.expireCredit() }
        }
        definition.state(.outOfOrder, in: .outOfService) { s in
            s.onEntry { c, fx in
                c.setOutputs(lock: true, ready: false, inhibit: true)
                fx.startTimer(NestedTurnstileTimer.state, afterNanoseconds: c.repairNanoseconds, sending: .timeout)
            }
            s.onExit { _, fx in fx.cancelTimer(NestedTurnstileTimer.state) }
            s.on(.timeout, to: .locked)
        }
        definition.state(.emergency) { s in
            s.onEntry { c, _ in c.setOutputs(lock: false, ready: false, inhibit: true) }
            s.on(.push) { c, _ in c.counters.freePassages += 1 }
            s.on(.coin) { c, _ in
                c.counters.coins += 1
                c.counters.coinsOutOfService += 1
            }
            s.on(.emergencyOff, when: Guard("was in service") { $0.stateBeforeEmergency == .locked || $0.stateBeforeEmergency == .unlocked }, to: .locked)
            s.on(.emergencyOff, to: .broken)
        }
        return definition
    }
}
