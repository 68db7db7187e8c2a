import Synchronization

/// A bounded multi-producer, single-consumer queue without a lock (Dmitry Vyukov's bounded
/// queue): a producer claims a position with one compare-and-swap and publishes its entry with
/// one store; the single consumer (whoever holds `SharedMachine`'s dispatch lock) takes entries
/// in the order their positions were claimed, with loads and stores only.
///
/// Each slot carries a sequence number that says whose turn it is: `position` when the slot is
/// free for the producer claiming `position`, `position + 1` once that producer has published,
/// `position + size` once the consumer has taken it (free for the next lap). Positions are
/// compared by wrapping difference, so they may run past `Int.max`.
///
/// Memory orderings:
/// - Publish: a producer writes its entry, then stores the slot's sequence (`position + 1`)
///   releasing; the consumer loads it acquiring before it moves the entry out. So the consumer
///   reads an entry whole. (Relaxed, arm64 could show the sequence before the entry.)
/// - Hand back: the consumer moves the entry out, then stores the sequence (`position + size`)
///   releasing; the next lap's producer loads it acquiring before it writes the slot. So a slot
///   is never overwritten while the consumer reads it.
/// - Claim: the compare-and-swap on `nextToClaim` is relaxed. It only decides which producer
///   owns a position; what the owner may do with the slot is decided by the slot's sequence,
///   read acquiring before the claim, and the sequence says "free for this position" only
///   once the consumer handed it back.
/// - The consumer is one thread at a time (`SharedMachine`'s dispatch lock, or a
///   `PollableInbox`'s event loop), so it loads and stores `nextToTake` relaxed: the lock (or
///   the single thread) orders one consumer after the last.
/// - Relaxed and safe: `claimedCount` and `hasClaimedEntry`, which only say whether to look.
///   `SharedMachine` fences (sequentially consistent) around them where a look must not miss
///   an entry published by a sender that found the lock taken.
@usableFromInline
final class InboxRing<Entry>: @unchecked Sendable {
    // Safety: a producer writes `entries[slot]` only after claiming its position (the CAS on
    // `nextToClaim`) and before its releasing store of the slot's sequence; the consumer reads it
    // only after an acquiring load sees that store, and hands the slot back with another one.
    @usableFromInline let sequences: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let entries: UnsafeMutablePointer<Entry>
    @usableFromInline let mask: Int
    @usableFromInline let nextToClaim: Atomic<Int>
    /// Written by the consumer only. Atomic because the thread that has just let go of the
    /// dispatch lock reads it, without the lock, to look for entries left behind.
    @usableFromInline let nextToTake: Atomic<Int>

    /// The largest capacity an inbox takes: a power of two that rounding up cannot overflow, far
    /// past any burst of sends.
    static var maximumCapacity: Int { 1 << 30 }

    /// `capacity` is rounded up to a power of two. `firstPosition` is for tests of wrapping.
    init(capacity: Int, firstPosition: Int = 0) {
        precondition(capacity > 0, "an inbox needs a capacity of at least 1, got \(capacity)")
        precondition(capacity <= Self.maximumCapacity, "an inbox holds at most \(Self.maximumCapacity) entries, got \(capacity)")
        var size = 1
        while size < capacity { size <<= 1 }
        mask = size - 1
        sequences = .allocate(capacity: size)
        for offset in 0..<size {
            let position = firstPosition &+ offset
            (sequences + (position & mask)).initialize(to: Atomic(position))
        }
        entries = .allocate(capacity: size)
        nextToClaim = Atomic(firstPosition)
        nextToTake = Atomic(firstPosition)
    }

    deinit {
        while take() != nil {}
        sequences.deinitialize(count: mask + 1)
        sequences.deallocate()
        entries.deallocate()
    }

    var capacity: Int { mask + 1 }

    /// Positions claimed and not yet taken: entries published or about to be. Exact only when
    /// no producer is between its claim and its publication, and nobody takes meanwhile: read
    /// from another thread, the two loads are not one moment (a take between them, or a stale
    /// `nextToClaim`, could make it negative, or a claim could make it pass the capacity), so
    /// it is clamped to what the ring can hold.
    var claimedCount: Int {
        let claimed = nextToClaim.load(ordering: .relaxed) &- nextToTake.load(ordering: .relaxed)
        return Swift.min(Swift.max(claimed, 0), mask &+ 1)
    }

    /// Stores `entry` and returns its position (its ticket: entries are taken in position
    /// order), or `nil` when every slot is full.
    @inlinable
    func push(_ entry: Entry) -> Int? {
        var position = nextToClaim.load(ordering: .relaxed)
        while true {
            let slot = position & mask
            let lag = sequences[slot].load(ordering: .acquiring) &- position
            if lag == 0 {
                let (claimed, current) = nextToClaim.weakCompareExchange(
                    expected: position, desired: position &+ 1, ordering: .relaxed)
                if claimed { break }
                position = current
            } else if lag < 0 {
                return nil  // the slot still holds the entry from one lap ago: full
            } else {
                position = nextToClaim.load(ordering: .relaxed)  // another producer got there first
            }
        }
        let slot = position & mask
        (entries + slot).initialize(to: entry)
        sequences[slot].store(position &+ 1, ordering: .releasing)
        return position
    }

    /// Consumer only: the oldest published entry and its position, or `nil` when the next
    /// position is not published yet.
    @inlinable
    func take() -> (entry: Entry, position: Int)? {
        guard let position = publishedPosition else { return nil }
        return (takeEntry(at: position), position)
    }

    /// Consumer only: the next position to take, if its entry is published. With
    /// `takeEntry(at:)`, `take()` without its `(Entry, Int)?`, whose metadata generic code left
    /// unspecialised makes (allocating) the first time it runs.
    @inlinable
    var publishedPosition: Int? {
        let position = nextToTake.load(ordering: .relaxed)
        return sequences[position & mask].load(ordering: .acquiring) == position &+ 1 ? position : nil
    }

    /// Consumer only: takes the entry at `position`, which `publishedPosition` gave.
    @inlinable
    func takeEntry(at position: Int) -> Entry {
        let slot = position & mask
        let entry = (entries + slot).move()
        sequences[slot].store(position &+ mask &+ 1, ordering: .releasing)
        nextToTake.store(position &+ 1, ordering: .relaxed)
        return entry
    }

    /// Whether the next entry to take is published.
    @inlinable
    var hasPublishedEntry: Bool {
        let position = nextToTake.load(ordering: .relaxed)
        return sequences[position & mask].load(ordering: .acquiring) == position &+ 1
    }

    /// Whether a position has been claimed and not taken: an entry published, or about to be.
    /// Cheaper than `hasPublishedEntry` (two loads, no slot), so the uncontended path asks this
    /// and leaves `take` to say whether the entry is there yet.
    @inlinable
    var hasClaimedEntry: Bool {
        nextToTake.load(ordering: .relaxed) != nextToClaim.load(ordering: .relaxed)
    }
}
