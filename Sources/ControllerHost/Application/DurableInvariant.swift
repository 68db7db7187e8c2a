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
    /// How the summaries and `stats` call a name when not by itself (`expiredCredits`:
    /// `expired`).
    public let labels: [String: String]

    public init(_ name: String, _ total: String, equals parts: [String], labels: [String: String] = [:]) {
        self.name = name
        self.total = total
        self.parts = parts
        self.labels = labels
    }

    /// How a name in the balance is shown.
    public func label(_ name: String) -> String { labels[name] ?? name }

    /// The balance without the names `leaving` drops: what one run can check, before a restart
    /// books what stood (a gauge's ``GaugeDeclaration/voidedByRestart`` kind).
    public func dropping(_ leaving: Set<String>) -> DurableInvariant {
        DurableInvariant(name, total, equals: parts.filter { !leaving.contains($0) }, labels: labels)
    }

    /// `3 coins = 2 passages + 1 credit`, each value before its label (the run summaries).
    public func valuesFirst(_ value: (String) -> Int) -> String {
        "\(value(total)) \(label(total)) = " + parts.map { "\(value($0)) \(label($0))" }.joined(separator: " + ")
    }

    /// `coins 3 = passages 2 + credit 1`, each label before its value (`stats`).
    public func labelsFirst(_ value: (String) -> Int) -> String {
        "\(label(total)) \(value(total)) = " + parts.map { "\(label($0)) \(value($0))" }.joined(separator: " + ")
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
