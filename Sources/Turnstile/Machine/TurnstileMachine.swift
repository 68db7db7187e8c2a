import ControllerFSM

/// The turnstile, one block per state: each block holds the state's entry and exit work, every
/// event it answers and where each one leads (docs/turnstile.md); a superstate's block
/// holds what the states inside it answer alike. Any (state, event) pair not written here is
/// ignored.
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

    /// The rows, nested (docs/guide.md and docs/design.md, "Superstates, history, eventless rows and final states"):
    ///
    ///     operating                       emergencyOn -> emergency (credit expired)
    ///       inService (starts in locked)  fault -> broken, repair -> outOfOrder
    ///         locked, unlocked
    ///       outOfService (starts broken)  a coin taken out of service
    ///         broken, outOfOrder
    ///     emergency                       emergencyOff -> resume (operating's history)
    ///
    /// Each innermost state answers first, then the superstates around it: every (state, event)
    /// pair is answered by the same row, guards in the same order, as if each state wrote its
    /// own. The superstates have no entry or exit work and no timer, so each transition runs the
    /// same work in the same order as in a flat machine of the innermost states.
    public static func definition() -> Definition {
        // operating starts in inService, which starts in locked.
        var definition = Definition(initial: .operating)

        definition.state(.operating) { s in
            s.initial(.inService)
            // The fire alarm, answered once for the four states inside.
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.inService, in: .operating) { s in
            s.initial(.locked)
            // Not in broken or outOfOrder: a fault there, or a repair in outOfOrder, is ignored.
            s.on(.fault, to: .broken, breakDown)
            s.on(.repair, to: .outOfOrder, beginRepair)
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
        }

        definition.state(.outOfService, in: .operating) { s in
            // Where an emergency that interrupted broken or outOfOrder comes back to.
            s.initial(.broken)
            s.on(.coin) { c, _ in c.takeCoinOutOfService() }
        }

        definition.state(.broken, in: .outOfService) { s in
            s.onEntry { c, _ in
                c.setOutputs(lock: true, ready: false, inhibit: true)
                c.outputs.alarm = true
            }
            s.onExit { c, _ in c.outputs.alarm = false }
            s.on(.repair, to: .outOfOrder, beginRepair)
        }

        definition.state(.outOfOrder, in: .outOfService) { s in
            s.onEntry { c, fx in
                c.setOutputs(lock: true, ready: false, inhibit: true)
                fx.startTimer(TurnstileTimer.state, afterNanoseconds: c.repairNanoseconds, sending: .timeout)
            }
            s.onExit { _, fx in fx.cancelTimer(TurnstileTimer.state) }
            s.on(.timeout, to: .locked)
        }

        // Where the emergency returns: operating's child when the alarm began (shallow), entered
        // at its initial state — in service is locked (an unlocked turnstile's credit expired
        // with the alarm), out of service is broken (a repair under way is not resumed: it
        // needs the service key again). Before any emergency: in service, as the flat machine's
        // `stateBeforeEmergency` began at locked. Neither superstate has entry work, so coming
        // back runs only the entry of locked or broken, as the flat rows did.
        definition.history(.resume, of: .operating, default: .inService)

        definition.state(.emergency) { s in
            s.onEntry { c, _ in c.setOutputs(lock: false, ready: false, inhibit: true) }
            s.on(.push) { c, _ in c.counters.freePassages += 1 }
            s.on(.coin) { c, _ in c.takeCoinOutOfService() }
            s.on(.emergencyOff, to: .resume)
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

    /// The state an emergency interrupted is kept for the record only (``TurnstileContext/stateBeforeEmergency``):
    /// where `emergencyOff` leads is operating's history's to say.
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
