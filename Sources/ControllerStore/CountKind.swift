import ControllerHost
import Turnstile

/// The kinds of counted event the store records: a row's `kind` and a key of the totals.
public enum CountKind {
    /// The fire alarm became active (the state entered `emergency`).
    public static let emergencyOn = "emergencyOn"
    /// The fire alarm cleared (the state left `emergency`).
    public static let emergencyOff = "emergencyOff"
    /// Credit a customer had paid for and not used when the controller stopped (killed, power
    /// lost, or shut down): the next controller starts at credit 0, so the store books that credit
    /// here when the next session begins. It keeps the money invariant true across restarts:
    /// `coins == passages + expiredCredits + coinsOutOfService + creditsVoidedByRestart + credit`.
    public static let creditsVoidedByRestart = "creditsVoidedByRestart"

    /// Every kind, in a fixed order: the controller's counters (`TurnstileCounters.names`), then
    /// the emergency changes, then the voided credit.
    public static let all: [String] = TurnstileCounters.names + [emergencyOn, emergencyOff, creditsVoidedByRestart]
}
