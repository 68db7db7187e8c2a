/// Every counter (or gauge) of an application at one moment, in the declaration's order, in a
/// fixed-size value: the ledger ring copies one per step without allocating.
public struct CounterValues: Hashable, Sendable {
    /// The most counters an application may declare, `ignored` included (the turnstile has 9,
    /// the parking barrier 8). More would make every ledger entry larger for everyone.
    public static let capacity = 16

    @usableFromInline var storage = InlineArray<16, Int>(repeating: 0)
    /// How many values are meaningful.
    public let count: Int

    public init(count: Int) {
        precondition(count <= Self.capacity, "at most \(Self.capacity) counters (CounterValues.capacity); \(count) declared")
        self.count = count
    }

    @inlinable
    public subscript(index: Int) -> Int {
        get { storage[index] }
        set { storage[index] = newValue }
    }

    /// The values in order, for code off the event path.
    public var values: [Int] { (0..<count).map { storage[$0] } }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.count == rhs.count && (0..<lhs.count).allSatisfy { lhs.storage[$0] == rhs.storage[$0] }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for index in 0..<count { hasher.combine(storage[index]) }
    }
}
