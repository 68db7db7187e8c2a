import Synchronization

/// Lets the threads that drain a producer's rings sleep until there is something to drain,
/// instead of waking every few milliseconds to look: an idle controller then costs no wake-ups.
///
/// The producer rings after each publication; that is one load while every drainer is awake
/// (no system call, no write to a shared line), and a futex wake only when a drainer said it was
/// going to sleep. A drainer that finds work after its drain should sleep for its usual interval
/// without the doorbell (`MonotonicClock.sleep`), so that a busy producer never pays a wake per
/// event; only a drain that found nothing waits here.
///
/// Correctness is the store-buffer pattern: the producer publishes (sequentially consistent)
/// then reads `sleepers`; the drainer counts itself in `sleepers` then reads the publication
/// (sequentially consistent). One of the two sees the other, so a publication is never left
/// unseen by a drainer asleep. The publication is the doorbell's own word when the producer
/// rings with `ring(publishing:)`: every sleep loads it before asking `hasWork`, so `hasWork`
/// may then look at anything the producer wrote before it published (a ring's records, whose
/// own stores only release) and is sure to see it. A producer that publishes in a word of its
/// own rings with `ring()`, and `hasWork` must load that word sequentially consistent itself.
/// Nothing else bounds a sleep: a drainer that sleeps without a timeout is woken only by a
/// ring, never by a backstop, so an idle daemon makes no wake-ups at all.
public final class Doorbell: @unchecked Sendable {
    // Safety: `word` is allocated once and only used through its atomic.
    /// Bumped by every ring that wakes: the futex word a drainer sleeps on.
    private let word: UnsafeMutablePointer<Atomic<UInt32>>
    /// Drainers between "going to sleep" and awake again.
    private let sleepers = Atomic<UInt32>(0)
    /// The producer's last `ring(publishing:)`.
    @usableFromInline let published = Atomic<UInt64>(0)

    public init() {
        word = .allocate(capacity: 1)
        word.initialize(to: Atomic(0))
    }

    deinit {
        word.deinitialize(count: 1)
        word.deallocate()
    }

    /// Called by the producer after a sequentially consistent store of what it published: wakes
    /// the drainers asleep, if any.
    @inlinable
    public func ring() {
        if hasSleepers { ringAlways() }
    }

    /// Called by the producer after it wrote what `value` announces (records in a ring, a count):
    /// stores `value` as the doorbell's publication (sequentially consistent) and wakes the
    /// drainers asleep, if any. One store and one load while every drainer is awake.
    @inlinable
    public func ring(publishing value: UInt64) {
        published.store(value, ordering: .sequentiallyConsistent)
        ring()
    }

    /// The last value of `ring(publishing:)`, sequentially consistent; 0 before the first.
    public var publication: UInt64 { published.load(ordering: .sequentiallyConsistent) }

    @usableFromInline var hasSleepers: Bool { sleepers.load(ordering: .sequentiallyConsistent) != 0 }

    /// Rings that woke (or would have woken) someone: a test's view of whether a ring cost a
    /// system call.
    var wakes: UInt32 { word.pointee.load(ordering: .relaxed) }

    /// Wakes every drainer asleep, whatever they were waiting for: a stop, a change of plan.
    public func ringAlways() {
        word.pointee.add(1, ordering: .sequentiallyConsistent)
        Futex.wakeAll(on: word)
    }

    /// Sleeps until rung, or until `nanoseconds` passed (nil: no limit), unless `hasWork` says
    /// there is something already. `hasWork` runs after the publication was loaded (see the
    /// type's discussion): it sees everything published before, and what another producer
    /// rings about it must load sequentially consistent. May return early (a signal, a ring
    /// for another drainer): the caller looks again.
    public func sleep(nanoseconds: Int64?, unless hasWork: () -> Bool) {
        let seen = word.pointee.load(ordering: .sequentiallyConsistent)
        sleepers.add(1, ordering: .sequentiallyConsistent)
        defer { sleepers.subtract(1, ordering: .sequentiallyConsistent) }
        // After counting itself a sleeper: a `ring(publishing:)` this load does not see has not
        // looked at the sleepers yet, and will wake this one.
        _ = published.load(ordering: .sequentiallyConsistent)
        if hasWork() { return }
        if let nanoseconds {
            Futex.wait(on: word, whileItHolds: seen, nanoseconds: nanoseconds)
        } else {
            Futex.wait(on: word, whileItHolds: seen)
        }
    }
}
