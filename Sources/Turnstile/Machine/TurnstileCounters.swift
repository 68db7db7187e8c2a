/// What the turnstile counts. `coins == passages + expiredCredits + coinsOutOfService + credit`
/// holds after every event: money is never lost.
public struct TurnstileCounters: Sendable, Hashable {
    public var coins = 0
    public var passages = 0
    public var forcedPushes = 0
    public var expiredCredits = 0
    public var faults = 0
    public var coinsOutOfService = 0
    public var repairs = 0
    public var freePassages = 0
    /// Events the table does not answer in the current state. The machine counts these itself
    /// (`MachineStatistics.ignored`, the controller's `ignoredCount`); no action writes it, and the
    /// context's counters leave it 0.
    public var ignored = 0

    public init() {}

    /// Every counter with its name, in a fixed order (the names scenarios and JSON use).
    public var all: KeyValuePairs<String, Int> {
        [
            "coins": coins, "passages": passages, "forcedPushes": forcedPushes,
            "expiredCredits": expiredCredits, "faults": faults, "coinsOutOfService": coinsOutOfService,
            "repairs": repairs, "freePassages": freePassages, "ignored": ignored,
        ]
    }

    package static let names: [String] = TurnstileCounters().all.map(\.key)

    /// The counter called `name`, if there is one.
    package func value(named name: String) -> Int? {
        all.first { $0.key == name }?.value
    }
}
