import ControllerFSM
@testable import ParkingBarrier

/// A barrier's table with two faults (a fixture, not the product): `emergency` ends straight
/// into `open`, whatever the arm, and `open` does not answer the arm leaving its top. The exploration tests show that `explore()`, with the outputs' declared preconditions,
/// finds what is wrong with it.
enum LegacyBarrierMachine {
    typealias Definition = MachineDefinition<BarrierState, BarrierEvent, BarrierContext>
    typealias Table = TransitionTable<BarrierState, BarrierEvent, BarrierContext>
    typealias Machine = StateMachine<BarrierState, BarrierEvent, BarrierContext>
    typealias Step = Effects<BarrierState, BarrierEvent>

    /// The compiled table. The definition is fixed, so failing to compile is a programming error.
    static let table: Table = {
        do {
            // BarrierState now has superstates, which this flat table never enters: their empty
            // blocks are unreachable, and tolerated.
            return try definition().compile(tolerating: [.unreachableState])
        } catch {
            fatalError("the legacy barrier definition is invalid: \(error)")
        }
    }()

    static func definition() -> Definition {
        var definition = Definition(initial: .closed)
        let timer = BarrierTimer.state

        definition.state(.operating) { _ in }
        definition.state(.inService) { _ in }

        definition.state(.closed) { s in
            s.on(.request, to: .opening, countRequest)
            s.on(.downLeft, to: .fault, countFault)  // the arm left its rest without a command
            s.on(.fault, to: .fault, countFault)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.opening) { s in
            s.onEntry { c, fx in
                // Already up: straight on to `open`, through the same row as the limit's edge.
                if c.upLimit { fx.send(.upReached) } else { fx.startTimer(timer, afterNanoseconds: c.motorTimeout, sending: .timeout) }
            }
            s.onExit { _, fx in fx.cancelTimer(timer) }
            s.on(.upReached, to: .open)
            s.on(.timeout, to: .fault, countFault)  // the arm did not reach its top
            s.on(.request, countRequest)
            s.on(.fault, to: .fault, countFault)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.open) { s in
            s.onEntry { c, fx in
                c.passed = false
                fx.startTimer(timer, afterNanoseconds: c.holdOpen, sending: .timeout)
            }
            s.onExit { _, fx in fx.cancelTimer(timer) }
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
            s.on(.fault, to: .fault, countFault)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.closing) { s in
            s.onEntry { c, fx in
                if c.downLimit { fx.send(.downReached) } else { fx.startTimer(timer, afterNanoseconds: c.motorTimeout, sending: .timeout) }
            }
            s.onExit { _, fx in fx.cancelTimer(timer) }
            s.on(.downReached, to: .closed)
            s.on(.timeout, to: .fault, countFault)  // the arm did not reach its rest
            s.on(.blocked, to: .opening, reverse)
            s.on(.vehicleIn, to: .opening, reverse)
            s.on(.request, to: .opening, countRequest)
            s.on(.fault, to: .fault, countFault)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.fault) { s in
            s.on(.repair, to: .opening) { c, _ in c.counters.repairs += 1 }
            s.on(.request, refuseRequest)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.emergency) { s in
            // The barrier lifts for evacuation.
            s.onEntry { c, fx in
                c.rising = !c.upLimit
                if c.rising { fx.startTimer(timer, afterNanoseconds: c.motorTimeout, sending: .timeout) }
            }
            s.onExit { c, fx in
                c.rising = false
                fx.cancelTimer(timer)
            }
            s.on(.upReached) { c, fx in
                c.rising = false
                fx.cancelTimer(timer)
            }
            s.on(.timeout) { c, _ in
                c.rising = false
                c.counters.faults += 1
                c.faultBeforeEmergency = true
            }
            s.on(.request, refuseRequest)
            s.on(.emergencyOff, when: Guard("remembered fault") { $0.faultBeforeEmergency }, to: .fault)
            s.on(.emergencyOff, to: .open)
        }

        return definition
    }

    // Actions shared by several states' rows.

    private static func countRequest(_ c: inout BarrierContext, _: inout Step) { c.counters.requests += 1 }
    private static func refuseRequest(_ c: inout BarrierContext, _: inout Step) { c.counters.refusedRequests += 1 }
    private static func countFault(_ c: inout BarrierContext, _: inout Step) { c.counters.faults += 1 }
    private static func reverse(_ c: inout BarrierContext, _: inout Step) { c.counters.reversals += 1 }

    private static func interrupt(_ c: inout BarrierContext, _ fx: inout Step) {
        c.faultBeforeEmergency = fx.state == .fault
    }
}
