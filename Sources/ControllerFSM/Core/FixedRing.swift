/// A first-in first-out ring of fixed capacity, with all storage reserved at initialisation.
/// Pushing into a full ring fails instead of growing: nothing allocates after `init`.
@usableFromInline
struct FixedRing<Element> {
    @usableFromInline var storage: ContiguousArray<Element>
    @usableFromInline var head = 0
    @usableFromInline var count = 0

    /// `filler` occupies the unused slots; it is never returned.
    @usableFromInline
    init(capacity: Int, filler: Element) {
        precondition(capacity > 0, "a ring needs a capacity of at least 1, got \(capacity)")
        storage = ContiguousArray(repeating: filler, count: capacity)
    }

    @inlinable var isEmpty: Bool { count == 0 }

    @inlinable
    mutating func push(_ element: Element) -> Bool {
        if count == storage.count { return false }
        var tail = head + count
        if tail >= storage.count { tail -= storage.count }
        storage[tail] = element
        count += 1
        return true
    }

    @inlinable
    mutating func pop() -> Element? {
        if count == 0 { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count { head = 0 }
        count -= 1
        return element
    }
}
