import ControllerFSM

/// The turnstile's states (docs/turnstile.md): the five it is ever in first, then the
/// superstates around them and the history the emergency returns through (the machine is only
/// ever in one of the first five: they keep their raw values, names and order for the store, the
/// metrics and `/status`).
public enum TurnstileState: Int, MachineSymbol {
    case locked, unlocked, broken, outOfOrder, emergency
    /// Superstates: every state but `emergency`; inside it, `locked` and `unlocked` (taking coins
    /// and passages), and `broken` and `outOfOrder` (out of service).
    case operating, inService, outOfService
    /// `operating`'s shallow history: where `emergencyOff` leads.
    case resume
}

/// The turnstile's events.
public enum TurnstileEvent: Int, MachineSymbol {
    /// A debounced coin pulse.
    case coin
    /// One passage of the arm (a debounced push pulse).
    case push
    /// A mechanism failure: the push sensor jammed, a relay write failed, a control command, or
    /// (in the simulator) random breakage.
    case fault
    /// A service request: a pulse on the service input or a control command.
    case repair
    /// The current state's timer: relock in `unlocked`, end of repair in `outOfOrder`.
    case timeout
    /// The fire alarm began: the emergency line became active, or a command declared it.
    case emergencyOn
    /// The fire alarm ended: neither the emergency line nor a command holds it any more.
    case emergencyOff
}

extension TurnstileEvent {
    /// The events an operator may send directly (`ctl`, a scenario's `event NAME`): the ones
    /// no line alone must carry. `coin` and `push` come from their lines only (money), and
    /// `timeout` from the machine's own timer.
    public static let directCommands: [TurnstileEvent] = [.fault, .repair, .emergencyOn, .emergencyOff]
}

/// The turnstile's timers.
public enum TurnstileTimer: Int, MachineTimer {
    /// The current state's timer (relock in `unlocked`, end of repair in `outOfOrder`); leaving
    /// the state cancels it.
    case state
}
