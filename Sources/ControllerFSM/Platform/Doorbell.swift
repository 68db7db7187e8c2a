import Synchronization

/// Lets the threads that drain a producer's rings sleep until there is something to drain,
/// instead of waking every few milliseconds to look: an idle controller then costs no wake-ups.
///
/// The producer rings after each publication; that is a fence and one load while every drainer
/// is awake (no system call, no write to a shared line), and a futex wake only when a drainer
/// said it was going to sleep. A drainer that finds work after its drain should sleep for its
/// usual interval without the doorbell (`MonotonicClock.sleep`), so that a busy producer never
/// pays a wake per event; only a drain that found nothing waits here.
///
/// Memory orderings (the store-buffer pattern, which x86 and arm64 alike break without fences):
/// - Producer: publishes (any store: a ring's releasing index store is enough), then `ring()`:
///   a sequentially consistent fence, then a relaxed load of `sleepers`.
/// - Drainer: `sleep` counts itself in `sleepers`, then a sequentially consistent fence, then
///   `hasWork()` reads the publication (acquiring loads are enough, as a ring's are).
/// - The two fences are ordered one way or the other: if the producer's fence comes first, the
///   drainer's `hasWork()` sees the publication, and everything the producer wrote before its
///   fence (every ring, not only the one `hasWork` was asked about first); if the drainer's
///   does, the producer sees it in `sleepers` and rings. So a publication is never left unseen
///   by a drainer asleep. Without the fences (a release store and an acquire load on each side),
///   both loads may read the old values: x86's store buffer does that, and arm64 does it for an
///   acquire load it may perform early (`LDAPR`) after a release store.
/// - `ringAlways()` adds to the futex word and wakes: a drainer read the word (`seen`) before
///   counting itself, and the kernel compares the word again before it sleeps, so a ring
///   between the two makes the wait return at once.
/// - The publication's data itself is ordered by the producer's own release and the drainer's
///   acquire (the ring's index), not by the doorbell: the doorbell decides only whether to look.
///
/// Nothing else bounds a sleep: a drainer that sleeps without a timeout is woken only by a
/// ring, never by a backstop, so an idle daemon makes no wake-ups at all.
public final class Doorbell: @unchecked Sendable {
    // Safety: `word` is allocated once and only used through its atomic.
    /// Bumped by every ring that wakes: the futex word a drainer sleeps on.
    private let word: UnsafeMutablePointer<Atomic<UInt32>>
    /// Drainers between "going to sleep" and awake again.
    private let sleepers = Atomic<UInt32>(0)

    public init() {
        word = .allocate(capacity: 1)
        word.initialize(to: Atomic(0))
    }

    deinit {
        word.deinitialize(count: 1)
        word.deallocate()
    }

    /// Called by the producer after it published (with any store): wakes the drainers asleep, if
    /// any. The fence orders the publication before the look at `sleepers` (see the type's
    /// comment); the load itself may then be relaxed.
    @inlinable
    public func ring() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if hasSleepers { ringAlways() }
    }

    @usableFromInline var hasSleepers: Bool { sleepers.load(ordering: .relaxed) != 0 }

    /// Rings that woke (or would have woken) someone: a test's view of whether a ring cost a
    /// system call.
    var wakes: UInt32 { word.pointee.load(ordering: .relaxed) }

    /// Wakes every drainer asleep, whatever they were waiting for: a stop, a change of plan.
    public func ringAlways() {
        word.pointee.add(1, ordering: .sequentiallyConsistent)
        Futex.wakeAll(on: word)
    }

    /// Sleeps until rung, or until `nanoseconds` passed (nil: no limit), unless `hasWork` says
    /// there is something already (acquiring loads are enough: a fence comes before it). May
    /// return early (a signal, a ring for another drainer): the caller looks again.
    public func sleep(nanoseconds: Int64?, unless hasWork: () -> Bool) {
        let seen = word.pointee.load(ordering: .sequentiallyConsistent)
        sleepers.add(1, ordering: .sequentiallyConsistent)
        defer { sleepers.subtract(1, ordering: .sequentiallyConsistent) }
        // Pairs with the fence in `ring()`: the count above, then the look at the work.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if hasWork() { return }
        if let nanoseconds {
            Futex.wait(on: word, whileItHolds: seen, nanoseconds: nanoseconds)
        } else {
            Futex.wait(on: word, whileItHolds: seen)
        }
    }
}
