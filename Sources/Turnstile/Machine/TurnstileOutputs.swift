/// The outputs as the machine wants them, in logical levels (1 = asserted): the controller
/// writes whatever changed after each dispatch. Keeping them as values lets the machine stay
/// free of GPIO and lets tests check the invariants directly.
public struct TurnstileOutputs: Sendable, Equatable {
    /// 1 = the arm is held.
    public var lock = true
    /// The continuous alarm (in `broken`). The alarm pulse is the output layer's, on top.
    public var alarm = false
    /// 1 in `locked` and `unlocked`: the turnstile takes coins.
    public var ready = false
    /// 1 in `broken`, `outOfOrder` and `emergency`: the coin acceptor returns coins.
    public var inhibit = false
    /// Set by a forced push; the output layer starts an alarm pulse and clears it.
    public var alarmPulseRequested = false

    public init() {}
}
