/// A balance the store's totals keep over the application's whole life, every run and restart
/// included: one counted kind equals the sum of other kinds and of gauges standing. The
/// turnstile's money: `coins == passages + expiredCredits + coinsOutOfService +
/// creditsVoidedByRestart + credit` (a credit standing when a run ends is booked as
/// `creditsVoidedByRestart` by the next, ``GaugeDeclaration/voidedByRestart``).
///
/// `stats` says whether they hold over what the database holds; the store's tests check them
/// over random runs with outages and restarts.
public struct DurableInvariant: Sendable, Hashable {
    /// How `stats` and the tests call it (`money`).
    public let name: String
    /// The counted kind on the left.
    public let total: String
    /// The counted kinds and gauges whose sum it equals.
    public let parts: [String]

    public init(_ name: String, _ total: String, equals parts: [String]) {
        self.name = name
        self.total = total
        self.parts = parts
    }

    /// Whether it holds with the values `value` gives each name. A sum past `Int.max` does not
    /// hold (no count the store keeps comes near it).
    public func holds(_ value: (String) -> Int) -> Bool {
        var sum = 0
        for part in parts {
            let (next, overflow) = sum.addingReportingOverflow(value(part))
            if overflow { return false }
            sum = next
        }
        return value(total) == sum
    }
}
