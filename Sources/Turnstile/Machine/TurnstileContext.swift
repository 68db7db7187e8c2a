import ControllerFSM

/// The periods the turnstile's machine uses; from the board file's `[turnstile]` section.
public struct TurnstileTimings: Sendable, Equatable {
    public var relockTimeout: Duration = .seconds(5)
    public var repairPeriod: Duration = .seconds(5)

    public init(relockTimeout: Duration = .seconds(5), repairPeriod: Duration = .seconds(5)) {
        self.relockTimeout = relockTimeout
        self.repairPeriod = repairPeriod
    }
}

/// The turnstile's data: counters, the credit (meaningful only while `unlocked`), the state the
/// last emergency interrupted, and the outputs the machine wants.
public struct TurnstileContext: Sendable {
    public var counters = TurnstileCounters()
    public var credit = 0
    /// The state the last emergency interrupted, for the record (explorations tell
    /// configurations apart by it; the benchmarks' independent turnstiles are compared on it).
    /// It no longer decides where `emergencyOff` leads: `operating`'s history does, and says the
    /// same (`TurnstileMachine.definition()`).
    public var stateBeforeEmergency = TurnstileState.locked
    public var outputs = TurnstileOutputs()
    public private(set) var timings: TurnstileTimings
    private(set) var relockNanoseconds: Int64
    private(set) var repairNanoseconds: Int64

    public init(timings: TurnstileTimings = TurnstileTimings()) {
        self.timings = timings
        relockNanoseconds = timings.relockTimeout.nanosecondCount
        repairNanoseconds = timings.repairPeriod.nanosecondCount
    }

    /// Takes new periods (a reloaded board file); timers already running keep their deadlines.
    mutating func retime(_ timings: TurnstileTimings) {
        self.timings = timings
        relockNanoseconds = timings.relockTimeout.nanosecondCount
        repairNanoseconds = timings.repairPeriod.nanosecondCount
    }

    /// Credit that will not become a passage is moved to `expiredCredits`, so every coin stays
    /// accounted for.
    mutating func expireCredit() {
        counters.expiredCredits += credit
        credit = 0
    }

    mutating func takeCoinOutOfService() {
        counters.coins += 1
        counters.coinsOutOfService += 1
    }
}
