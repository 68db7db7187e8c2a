import ControllerFSM

/// The barrier, one block per state: each block holds the state's entry and exit work, every
/// event it answers and where each one leads; a superstate's block holds what the states inside
/// it answer alike. Any other (state, event) pair is ignored.
///
///     operating                                   emergencyOn -> emergency
///       inService (starts closed)                 fault -> fault
///         closed, opening, open, closing
///       fault
///     emergency                                   emergencyOff -> fault or opening
///
/// Each innermost state answers first, then the superstates around it, so every (state, event)
/// pair is answered by the same row, guards in the same order, as when each state wrote its own.
/// The superstates have no entry or exit work and no timer.
public enum BarrierMachine {
    public typealias Definition = MachineDefinition<BarrierState, BarrierEvent, BarrierContext>
    public typealias Table = TransitionTable<BarrierState, BarrierEvent, BarrierContext>
    public typealias Machine = StateMachine<BarrierState, BarrierEvent, BarrierContext>
    public typealias Step = Effects<BarrierState, BarrierEvent>

    /// The compiled table. The definition is fixed, so failing to compile is a programming error.
    public static let table: Table = {
        do {
            return try definition().compile()
        } catch {
            fatalError("the parking barrier's own definition is invalid: \(error)")
        }
    }()

    public static func definition() -> Definition {
        // operating starts in inService, which starts in closed.
        var definition = Definition(initial: .operating)
        let timer = BarrierTimer.state

        definition.state(.operating) { s in
            s.initial(.inService)
            // The fire alarm, answered once for the five states inside.
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.inService, in: .operating) { s in
            s.initial(.closed)
            // Not in fault itself: a fault there is ignored.
            s.on(.fault, to: .fault, countFault)
        }

        definition.state(.closed, in: .inService) { s in
            s.on(.request, to: .opening, countRequest)
            s.on(.downLeft, to: .fault, countFault)  // the arm left its rest without a command
        }

        definition.state(.opening, in: .inService) { s in
            s.onEntry { c, fx in
                // Up, and seen there since the arm last moved: straight on to `open`, through the
                // same row as the limit's edge. Up as last seen, but driven down since: the
                // switch may not have reported leaving yet, so wait for it, motors off.
                if c.upLimit && !c.upStale {
                    fx.send(.upReached)
                } else if c.upLimit {
                    confirm(&c, &fx)
                } else {
                    lift(&c, &fx)
                }
            }
            s.onExit { c, fx in
                c.confirming = false
                fx.cancelTimer(timer)
            }
            s.on(.upReached, to: .open)
            // The switch reported leaving while it was being confirmed: the arm is below its top.
            s.on(.upLeft, when: Guard("confirming the top") { $0.confirming }, lift)
            s.on(.timeout, when: Guard("confirming the top") { $0.confirming }, to: .open) { c, _ in c.upStale = false }
            s.on(.timeout, to: .fault, countFault)  // the arm did not reach its top
            s.on(.request, countRequest)
        }

        definition.state(.open, in: .inService) { s in
            // `passed` is not cleared here: an arm that sagged and was lifted again (below) keeps
            // the passage it had seen; the states that end an opening clear it.
            s.onEntry { c, fx in
                fx.startTimer(timer, afterNanoseconds: c.passed ? c.closeDelay : c.holdOpen, sending: .timeout)
            }
            s.onExit { _, fx in fx.cancelTimer(timer) }
            // Green assumes the arm up: the arm leaving its top (pushed, sagging, or a closing's
            // stale level just now reported) lifts it again, green off until it is back.
            s.on(.upLeft, to: .opening)
            s.on(.request, countRequest)
            s.on(.vehicleIn) { _, fx in fx.cancelTimer(timer) }
            s.on(.vehicleOut) { c, fx in
                c.counters.passages += 1
                c.passed = true
                fx.startTimer(timer, afterNanoseconds: c.closeDelay, sending: .timeout)
            }
            s.on(.timeout, when: Guard("a vehicle on the loop or the beam broken") { !$0.isClear }) { c, fx in
                fx.startTimer(timer, afterNanoseconds: c.closeDelay, sending: .timeout)
            }
            s.on(.timeout, when: Guard("clear, passed") { $0.isClear && $0.passed }, to: .closing)
            s.on(.timeout, when: Guard("clear, not passed") { $0.isClear && !$0.passed }, to: .closing) { c, _ in
                c.counters.expiredOpenings += 1
            }
        }

        definition.state(.closing, in: .inService) { s in
            s.onEntry { c, fx in
                c.passed = false
                if c.downLimit && !c.downStale {
                    fx.send(.downReached)
                } else if c.downLimit {
                    confirm(&c, &fx)
                } else {
                    lower(&c, &fx)
                }
            }
            s.onExit { c, fx in
                c.confirming = false
                fx.cancelTimer(timer)
            }
            s.on(.downReached, to: .closed)
            s.on(.downLeft, when: Guard("confirming the rest") { $0.confirming }, lower)
            s.on(.timeout, when: Guard("confirming the rest") { $0.confirming }, to: .closed) { c, _ in c.downStale = false }
            s.on(.timeout, to: .fault, countFault)  // the arm did not reach its rest
            s.on(.blocked, to: .opening, reverse)
            s.on(.vehicleIn, to: .opening, reverse)
            s.on(.request, to: .opening, countRequest)
        }

        definition.state(.fault, in: .operating) { s in
            s.onEntry { c, _ in c.passed = false }
            s.on(.repair, to: .opening) { c, _ in c.counters.repairs += 1 }
            s.on(.request, refuseRequest)
        }

        definition.state(.emergency) { s in
            // The barrier lifts for evacuation.
            s.onEntry { c, fx in
                c.passed = false
                if c.upLimit && !c.upStale {
                    c.rising = false
                } else if c.upLimit {
                    confirm(&c, &fx)
                } else {
                    raise(&c, &fx)
                }
            }
            s.onExit { c, fx in
                c.rising = false
                c.confirming = false
                fx.cancelTimer(timer)
            }
            s.on(.upReached) { c, fx in
                c.rising = false
                fx.cancelTimer(timer)
            }
            // Below the top (reported while confirming, or the arm sagged): lift it again.
            s.on(.upLeft, when: Guard("not rising") { !$0.rising }, raise)
            s.on(.timeout, when: Guard("confirming the top") { $0.confirming }) { c, _ in
                c.confirming = false
                c.upStale = false
            }
            s.on(.timeout) { c, _ in
                c.rising = false
                c.counters.faults += 1
                c.faultBeforeEmergency = true
            }
            s.on(.request, refuseRequest)
            // Not operating's history: it would say the same only for fault. The barrier comes
            // back from any other state to opening, not to inService's start (closed) — the arm
            // is up, or on its way; and a motor timeout during the emergency (above) leaves a
            // fault to repair though none was interrupted. So the flag stays.
            s.on(.emergencyOff, when: Guard("remembered fault") { $0.faultBeforeEmergency }, to: .fault)
            // Never straight to `open`: the arm may still be rising. `opening` goes on to `open`
            // only once the up limit says the arm is there.
            s.on(.emergencyOff, to: .opening)
        }

        return definition
    }

    // Actions shared by several states' rows.

    private static func countRequest(_ c: inout BarrierContext, _: inout Step) { c.counters.requests += 1 }
    private static func refuseRequest(_ c: inout BarrierContext, _: inout Step) { c.counters.refusedRequests += 1 }
    private static func countFault(_ c: inout BarrierContext, _: inout Step) { c.counters.faults += 1 }
    private static func reverse(_ c: inout BarrierContext, _: inout Step) { c.counters.reversals += 1 }

    /// Motors off, waiting ``BarrierContext/limitSettle`` for a limit switch that may not
    /// have reported the arm leaving yet: it either does (`upLeft`, `downLeft`), or the level
    /// it shows is confirmed current.
    private static func confirm(_ c: inout BarrierContext, _ fx: inout Step) {
        c.confirming = true
        fx.startTimer(BarrierTimer.state, afterNanoseconds: c.limitSettle, sending: .timeout)
    }

    /// `motor_up` on (in `opening`), until the top or the motor timeout.
    private static func lift(_ c: inout BarrierContext, _ fx: inout Step) {
        c.confirming = false
        c.downStale = true
        fx.startTimer(BarrierTimer.state, afterNanoseconds: c.motorTimeout, sending: .timeout)
    }

    /// `motor_down` on (in `closing`), until the rest or the motor timeout.
    private static func lower(_ c: inout BarrierContext, _ fx: inout Step) {
        c.confirming = false
        c.upStale = true
        fx.startTimer(BarrierTimer.state, afterNanoseconds: c.motorTimeout, sending: .timeout)
    }

    /// `motor_up` on in `emergency`, until the top or the motor timeout.
    private static func raise(_ c: inout BarrierContext, _ fx: inout Step) {
        c.confirming = false
        c.rising = true
        c.downStale = true
        fx.startTimer(BarrierTimer.state, afterNanoseconds: c.motorTimeout, sending: .timeout)
    }

    /// `fx.state` is the innermost state the emergency interrupts, though the row is operating's.
    private static func interrupt(_ c: inout BarrierContext, _ fx: inout Step) {
        c.faultBeforeEmergency = fx.state == .fault
    }
}

/// The outputs as functions of state and context (logical levels: true is asserted).
extension BarrierState {
    public func motorUp(_ c: BarrierContext) -> Bool { (self == .opening && !c.confirming) || (self == .emergency && c.rising) }
    public func motorDown(_ c: BarrierContext) -> Bool { self == .closing && !c.confirming }
    public var green: Bool { self == .open }
    public var red: Bool { !green }
    public var alarm: Bool { self == .fault }
}
