import ControllerHost
import ParkingBarrier

/// docs/parking-barrier.md's invariants of the barrier, and one more the table implies: what must hold after
/// every step, whatever the inputs. The message names what broke.
enum BarrierInvariants {
    static func violation(of driver: BarrierDriver) -> String? {
        violation(driver.state, driver.context, timerRunning: driver.timerRunning, requestPulses: driver.requestPulses)
    }

    /// The same, for a state and context reached some other way (`explore()`'s).
    static func violation(_ state: BarrierState, _ c: BarrierContext, timerRunning: Bool, requestPulses: Int) -> String? {
        let out = BarrierDriver.Outputs(state, c)
        if let broken = ParkingBarrier.checkedInvariants.first(where: { !$0.holds(ParkingBarrier.table.configuration(at: state), c) }) { return "\(broken.name), in \(state.name)" }
        if out.motorUp && out.motorDown { return "both motors on in \(state.name)" }
        if out.motorDown && (c.loop || c.photocell) {
            return "motor_down on in \(state.name) with \(c.loop ? "a vehicle on the loop" : "the beam broken")"
        }
        // A motor stops at its end: it never drives the arm against the end stop.
        if out.motorUp && c.upLimit { return "motor_up on at the top in \(state.name)" }
        if out.motorDown && c.downLimit { return "motor_down on at the rest in \(state.name)" }
        let timed = switch state {
        case .opening, .closing: true
        // A vehicle that drove on while open holds the timer off until it leaves.
        case .open: c.loop ? timerRunning : true
        case .emergency: c.rising || c.confirming
        case .closed, .fault: false
        case .operating, .inService: false  // superstates, never the state
        }
        if timerRunning != timed {
            return "timer running \(timerRunning) in \(state.name)\(state == .emergency ? " (rising \(c.rising))" : "")"
        }
        if state != .emergency && c.rising { return "rising outside emergency, in \(state.name)" }
        if c.confirming && ![.opening, .closing, .emergency].contains(state) { return "confirming a limit in \(state.name)" }
        let counters = c.counters
        if counters.requests + counters.refusedRequests != requestPulses {
            return "requests \(counters.requests) + refused \(counters.refusedRequests) != \(requestPulses) requests made (pulses and commands)"
        }
        return nil
    }

    /// Where the host's writes after a step, made one by one in the declaration's order, would
    /// pass through both motors on, or `nil`.
    static func writeOrderViolation(
        from before: (state: BarrierState, context: BarrierContext), to after: (state: BarrierState, context: BarrierContext)
    ) -> String? {
        var written = ParkingBarrier.outputs.map { $0.level(ParkingBarrier.table.configuration(at: before.state), before.context) }
        let wanted = ParkingBarrier.outputs.map { $0.level(ParkingBarrier.table.configuration(at: after.state), after.context) }
        let up = ParkingBarrier.outputIndex(named: "motor_up")!, down = ParkingBarrier.outputIndex(named: "motor_down")!
        for index in written.indices where written[index] != wanted[index] {
            written[index] = wanted[index]
            if written[up] && written[down] {
                return "from \(before.state.name) to \(after.state.name), writing \(ParkingBarrier.outputs[index].role) leaves both motors on"
            }
        }
        return nil
    }
}
