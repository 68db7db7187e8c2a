import ControllerHost
import ParkingBarrier

/// DESIGN.md's invariants of the barrier, and one more the table implies: what must hold after
/// every step, whatever the inputs. The message names what broke.
enum BarrierInvariants {
    static func violation(of driver: BarrierDriver) -> String? {
        let state = driver.state, c = driver.context, out = driver.outputs
        if let broken = ParkingBarrier.invariants.first(where: { !$0.holds(state, c) }) { return "\(broken.name), in \(state.name)" }
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
        case .open: c.loop ? driver.timerRunning : true
        case .emergency: c.rising
        case .closed, .fault: false
        }
        if driver.timerRunning != timed {
            return "timer running \(driver.timerRunning) in \(state.name)\(state == .emergency ? " (rising \(c.rising))" : "")"
        }
        if state != .emergency && c.rising { return "rising outside emergency, in \(state.name)" }
        let counters = driver.counters
        if counters.requests + counters.refusedRequests != driver.requestPulses {
            return "requests \(counters.requests) + refused \(counters.refusedRequests) != \(driver.requestPulses) request pulses"
        }
        return nil
    }

    /// Where the host's writes after a step, made one by one in the declaration's order, would
    /// pass through both motors on, or `nil`.
    static func writeOrderViolation(from before: BarrierDriver, to after: BarrierDriver) -> String? {
        let levels = { (d: BarrierDriver) in ParkingBarrier.outputs.map { $0.level(d.state, d.context) } }
        var written = levels(before)
        let wanted = levels(after)
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
