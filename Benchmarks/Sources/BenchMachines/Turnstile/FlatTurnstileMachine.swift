import ControllerFSM
import Turnstile

/// The turnstile as it was written before it had superstates: the same rows repeated in each
/// state (the fire alarm in four, fault and repair in two), the state an emergency interrupted
/// kept by hand. The flat figures are measured on it, since `TurnstileMachine` is now nested; it
/// does the same work on the same stream (every implementation's `TurnstileSnapshot` agrees).
public enum FlatTurnstileState: Int, MachineSymbol {
    case locked, unlocked, broken, outOfOrder, emergency

    /// The same state of the application's turnstile.
    var turnstile: TurnstileState { TurnstileState(rawValue: rawValue)! }

    var isInService: Bool { self == .locked || self == .unlocked }
}

enum FlatTurnstileTimer: Int, MachineTimer { case state }

struct FlatTurnstileContext {
    var counters = TurnstileCounters()
    var credit = 0
    var stateBeforeEmergency = FlatTurnstileState.locked
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

enum FlatTurnstileMachine {
    typealias Definition = MachineDefinition<FlatTurnstileState, TurnstileEvent, FlatTurnstileContext>

    static let table: TransitionTable<FlatTurnstileState, TurnstileEvent, FlatTurnstileContext> = {
        do {
            return try definition().compile()
        } catch {
            fatalError("the flat turnstile's definition is invalid: \(error)")
        }
    }()

    static func definition() -> Definition {
        var definition = Definition(initial: .locked)

        definition.state(.locked) { s in
            s.onEntry { c, _ in c.setOutputs(lock: true, ready: true, inhibit: false) }
            s.on(.coin, to: .unlocked) { c, _ in
                c.counters.coins += 1
                c.credit = 1
            }
            s.on(.push) { c, _ in
                c.counters.forcedPushes += 1
                c.outputs.alarmPulseRequested = true
            }
            s.on(.fault, to: .broken, breakDown)
            s.on(.repair, to: .outOfOrder, beginRepair)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.unlocked) { s in
            s.onEntry { c, fx in
                c.setOutputs(lock: false, ready: true, inhibit: false)
                fx.startTimer(FlatTurnstileTimer.state, afterNanoseconds: c.relockNanoseconds, sending: .timeout)
            }
            s.onExit { _, fx in fx.cancelTimer(FlatTurnstileTimer.state) }
            s.on(.coin) { c, fx in
                c.counters.coins += 1
                c.credit += 1
                fx.startTimer(FlatTurnstileTimer.state, afterNanoseconds: c.relockNanoseconds, sending: .timeout)
            }
            s.on(.push, when: Guard("credit > 1") { $0.credit > 1 }) { c, fx in
                c.counters.passages += 1
                c.credit -= 1
                fx.startTimer(FlatTurnstileTimer.state, afterNanoseconds: c.relockNanoseconds, sending: .timeout)
            }
            s.on(.push, when: Guard("credit == 1") { $0.credit == 1 }, to: .locked) { c, _ in
                c.counters.passages += 1
                c.credit = 0
            }
            s.on(.timeout, to: .locked) { c, _ in c.expireCredit() }
            s.on(.fault, to: .broken, breakDown)
            s.on(.repair, to: .outOfOrder, beginRepair)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.broken) { s in
            s.onEntry { c, _ in
                c.setOutputs(lock: true, ready: false, inhibit: true)
                c.outputs.alarm = true
            }
            s.onExit { c, _ in c.outputs.alarm = false }
            s.on(.coin, takeCoinOutOfService)
            s.on(.repair, to: .outOfOrder, beginRepair)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.outOfOrder) { s in
            s.onEntry { c, fx in
                c.setOutputs(lock: true, ready: false, inhibit: true)
                fx.startTimer(FlatTurnstileTimer.state, afterNanoseconds: c.repairNanoseconds, sending: .timeout)
            }
            s.onExit { _, fx in fx.cancelTimer(FlatTurnstileTimer.state) }
            s.on(.coin, takeCoinOutOfService)
            s.on(.timeout, to: .locked)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.emergency) { s in
            s.onEntry { c, _ in c.setOutputs(lock: false, ready: false, inhibit: true) }
            s.on(.push) { c, _ in c.counters.freePassages += 1 }
            s.on(.coin, takeCoinOutOfService)
            s.on(.emergencyOff, when: Guard("was in service") { $0.stateBeforeEmergency.isInService }, to: .locked)
            s.on(.emergencyOff, when: Guard("was broken or under repair") { !$0.stateBeforeEmergency.isInService }, to: .broken)
        }

        return definition
    }

    private typealias Step = Effects<FlatTurnstileState, TurnstileEvent>

    private static func breakDown(_ c: inout FlatTurnstileContext, _: inout Step) {
        c.counters.faults += 1
        c.expireCredit()
    }

    private static func beginRepair(_ c: inout FlatTurnstileContext, _: inout Step) {
        c.counters.repairs += 1
        c.expireCredit()
    }

    private static func takeCoinOutOfService(_ c: inout FlatTurnstileContext, _: inout Step) {
        c.counters.coins += 1
        c.counters.coinsOutOfService += 1
    }

    private static func interrupt(_ c: inout FlatTurnstileContext, _ fx: inout Step) {
        c.expireCredit()
        c.stateBeforeEmergency = fx.state
    }
}
