import ControllerFSM

/// The turnstile, one block per state: each block holds the state's entry and exit work, every
/// event it answers and where each one leads (DESIGN.md, "The turnstile"). Any (state, event)
/// pair not written here is ignored.
public enum TurnstileMachine {
    public typealias Definition = MachineDefinition<TurnstileState, TurnstileEvent, TurnstileContext>
    public typealias Table = TransitionTable<TurnstileState, TurnstileEvent, TurnstileContext>
    public typealias Machine = StateMachine<TurnstileState, TurnstileEvent, TurnstileContext>
    public typealias Step = Effects<TurnstileState, TurnstileEvent>

    /// The compiled table. The definition is fixed, so failing to compile is a programming error.
    public static let table: Table = {
        do {
            return try definition().compile()
        } catch {
            fatalError("the turnstile's own definition is invalid: \(error)")
        }
    }()

    /// Room for events the turnstile's actions send during one dispatch. They send none today;
    /// a few to spare, in a few bytes.
    public static let queueCapacity = 8

    /// A new, unstarted machine.
    public static func makeMachine(
        timings: TurnstileTimings = TurnstileTimings(),
        trace: TraceRing<TurnstileState, TurnstileEvent>? = nil
    ) -> Machine {
        StateMachine(table: table, context: TurnstileContext(timings: timings), queueCapacity: queueCapacity, trace: trace)
    }

    public static func definition() -> Definition {
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
                fx.startTimer(TurnstileTimer.state, afterNanoseconds: c.relockNanoseconds, sending: .timeout)
            }
            s.onExit { _, fx in fx.cancelTimer(TurnstileTimer.state) }
            s.on(.coin) { c, fx in
                c.counters.coins += 1
                c.credit += 1
                fx.startTimer(TurnstileTimer.state, afterNanoseconds: c.relockNanoseconds, sending: .timeout)
            }
            s.on(.push, when: Guard("credit > 1") { $0.credit > 1 }) { c, fx in
                c.counters.passages += 1
                c.credit -= 1
                fx.startTimer(TurnstileTimer.state, afterNanoseconds: c.relockNanoseconds, sending: .timeout)
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
            s.on(.coin) { c, _ in c.takeCoinOutOfService() }
            s.on(.repair, to: .outOfOrder, beginRepair)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.outOfOrder) { s in
            s.onEntry { c, fx in
                c.setOutputs(lock: true, ready: false, inhibit: true)
                fx.startTimer(TurnstileTimer.state, afterNanoseconds: c.repairNanoseconds, sending: .timeout)
            }
            s.onExit { _, fx in fx.cancelTimer(TurnstileTimer.state) }
            s.on(.coin) { c, _ in c.takeCoinOutOfService() }
            s.on(.timeout, to: .locked)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.emergency) { s in
            s.onEntry { c, _ in c.setOutputs(lock: false, ready: false, inhibit: true) }
            s.on(.push) { c, _ in c.counters.freePassages += 1 }
            s.on(.coin) { c, _ in c.takeCoinOutOfService() }
            s.on(.emergencyOff, when: Guard("was in service") { $0.stateBeforeEmergency.isInService }, to: .locked)
            s.on(.emergencyOff, when: Guard("was broken or under repair") { !$0.stateBeforeEmergency.isInService }, to: .broken)
        }

        return definition
    }

    // Actions shared by several states' rows.

    private static func breakDown(_ c: inout TurnstileContext, _: inout Step) {
        c.counters.faults += 1
        c.expireCredit()
    }

    private static func beginRepair(_ c: inout TurnstileContext, _: inout Step) {
        c.counters.repairs += 1
        c.expireCredit()
    }

    private static func interrupt(_ c: inout TurnstileContext, _ fx: inout Step) {
        c.expireCredit()
        c.stateBeforeEmergency = fx.state
    }
}

extension TurnstileState {
    /// `locked` or `unlocked`: taking coins and passages.
    var isInService: Bool { self == .locked || self == .unlocked }
}

extension TurnstileContext {
    mutating func setOutputs(lock: Bool, ready: Bool, inhibit: Bool) {
        outputs.lock = lock
        outputs.ready = ready
        outputs.inhibit = inhibit
    }
}
