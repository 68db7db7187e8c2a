/// A set of a machine's states by index, in a fixed ``capacity`` bits held inline: what code
/// that must not allocate keeps of a configuration (the event loop's status, a ledger entry).
/// Every state of every machine fits, as `compile()` refuses a machine with more states than
/// ``MachineLimits/maximumStates``.
///
/// ```swift
/// var bits = StateBits()
/// bits.insert(3)
/// assert(bits.contains(3) && !bits.contains(4))
/// ```
public struct StateBits: Hashable, Sendable {
    /// How many states the set can hold (indices `0..<capacity`).
    public static let capacity = MachineLimits.maximumStates
    @usableFromInline static let wordCount = 4

    @usableFromInline var words = InlineArray<4, UInt64>(repeating: 0)

    @inlinable public init() {}

    /// The set of `indices`.
    public init(_ indices: some Sequence<Int>) {
        for index in indices { insert(index) }
    }

    /// Sets bit `index`; an index past ``capacity`` (no compiled machine has one) is a
    /// programming error.
    @inlinable
    public mutating func insert(_ index: Int) {
        precondition(index >= 0 && index < Self.capacity, "state index \(index) is past StateBits.capacity (\(Self.capacity))")
        words[index >> 6] |= 1 << UInt64(index & 63)
    }

    @inlinable
    public func contains(_ index: Int) -> Bool {
        guard index >= 0 && index < Self.capacity else { return false }
        return words[index >> 6] & (1 << UInt64(index & 63)) != 0
    }

    @inlinable
    public var isEmpty: Bool {
        for word in 0..<Self.wordCount where words[word] != 0 { return false }
        return true
    }

    /// The indices in the set, ascending (allocates: for code off the event path).
    public var indices: [Int] { (0..<Self.capacity).filter(contains) }

    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        for word in 0..<wordCount where lhs.words[word] != rhs.words[word] { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        for word in 0..<Self.wordCount { hasher.combine(words[word]) }
    }
}
