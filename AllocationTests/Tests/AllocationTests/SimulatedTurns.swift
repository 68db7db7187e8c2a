import ControllerFSM
import ControllerFSMSim
import ControllerHost

/// Runs `controller` on `chip` in virtual time up to `end`, a turn at a time as the daemon's loop
/// does: to the earlier of the chip's next edge and the controller's next deadline, the chip
/// advanced and the controller's work done. `afterTurn` runs after each turn (a test drains
/// there what the daemon's other threads would).
func runTurns<App: ControllerApplication>(
    of controller: Controller<App, SimChip>, on chip: SimChip, until end: MachineInstant, afterTurn: () -> Void = {}
) throws {
    while true {
        var now = end
        if let edge = chip.nextEventTime, edge < now { now = edge }
        if let deadline = controller.nextDeadline, deadline < now { now = deadline }
        chip.advance(to: now)
        try controller.process(now: now)
        afterTurn()
        if now == end { return }
    }
}
