import ControllerFSM

/// The barrier's states (docs/parking-barrier.md): the six it is ever in first, then the
/// superstates around them (the six keep their raw values, names and order for the store, the
/// metrics and `/status`).
public enum BarrierState: Int, MachineSymbol {
    case closed, opening, open, closing, fault, emergency
    /// Superstates: every state but `emergency`; inside it, every state but `fault`.
    case operating, inService
}

/// The barrier's events. Each level input has two: its active and its inactive edge.
public enum BarrierEvent: Int, MachineSymbol {
    case request
    /// The induction loop: a vehicle drove onto it, or left it.
    case vehicleIn, vehicleOut
    /// The safety beam across the lane: broken, or whole again.
    case blocked, unblocked
    /// The limit switches: the arm reached, or left, its top or its rest.
    case upReached, upLeft, downReached, downLeft
    /// The current state's timer.
    case timeout
    case fault, repair, emergencyOn, emergencyOff
}

/// The barrier's one timer: the current state's, cancelled when the state is left.
public enum BarrierTimer: Int, MachineTimer {
    case state
}
