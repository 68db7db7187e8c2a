import Synchronization

/// A bounded queue of entries for an event loop, with a descriptor that polls readable while
/// entries wait: the loop sleeps in one `poll` on its inputs and this, and takes the entries
/// between its events, so an entry never interrupts the event in hand. What a daemon's other
/// threads (a control socket, a signal handler's thread) ask of the loop comes this way.
///
/// Any thread posts; one thread, the loop, takes. The queue is `SharedMachine`'s lock-free ring:
/// posting never blocks and never allocates, and a full inbox refuses the entry and counts the
/// refusal. A stop request is a flag beside the ring, so it is never refused, and the loop sees
/// it before any entry still queued.
///
/// The wake-up is public so that a `SharedMachine` the loop runs can ring it too
/// (`SharedMachine(_:clock:inboxCapacity:wakeUp:)`): one descriptor wakes the loop for both.
///
/// Memory orderings: the entries are `InboxRing`'s (a slot's release and acquire); the loop is
/// its one consumer. A post rings with `ringAlways()`, one eventfd write after the entry is
/// published, so the kernel's lock on the eventfd orders the publication before the loop's
/// `poll` that sees the write. The stop flag is stored releasing and loaded acquiring; it
/// publishes nothing but itself. `refusals` is a relaxed count.
public final class PollableInbox<Entry: Sendable>: Sendable {
    @usableFromInline let ring: InboxRing<Entry>
    @usableFromInline let refusals = Atomic<Int>(0)
    @usableFromInline let stopping = Atomic<Bool>(false)
    /// Rung by every post and by the stop request.
    public let wakeUp: WakeUpDescriptor

    /// `capacity` is rounded up to a power of two.
    /// - Throws: when the wake-up's descriptor cannot be made (out of descriptors).
    public init(capacity: Int) throws(WakeUpError) {
        wakeUp = try WakeUpDescriptor()
        ring = InboxRing(capacity: capacity)
    }

    /// What the event loop polls (POLLIN) beside its inputs.
    public var pollDescriptor: Int32 { wakeUp.descriptor }

    /// How many entries the inbox holds.
    public var capacity: Int { ring.capacity }

    /// Queues `entry`; false (and counted) when the inbox is full.
    @inlinable
    @discardableResult
    public func post(_ entry: Entry) -> Bool {
        guard ring.push(entry) != nil else {
            refusals.add(1, ordering: .relaxed)
            return false
        }
        // A wake-up that fails leaves the entry queued: the loop takes it at its next turn.
        wakeUp.ringAlways()
        return true
    }

    /// Asks the loop to stop after the event in hand; cannot be refused.
    public func requestStop() {
        stopping.store(true, ordering: .releasing)
        wakeUp.ringAlways()
    }

    /// Whether a stop was requested. The loop asks once `take()` answers `nil`.
    @inlinable
    public var isStopRequested: Bool { stopping.load(ordering: .acquiring) }

    /// The oldest entry (event loop only), or `nil` when none waits or a stop was requested: the
    /// loop then stops, and what is still queued is `takeLeftovers()`'.
    @inlinable
    public func take() -> Entry? {
        guard !stopping.load(ordering: .acquiring) else { return nil }
        return ring.take()?.entry
    }

    /// Whether an entry waits and no stop was requested (event loop only); `takeWaiting()` then
    /// takes it. `while inbox.hasWaitingEntry { use(inbox.takeWaiting()) }` is `while let entry =
    /// take()` without `Entry?`, whose metadata a loop generic over its entries and left
    /// unspecialised (a daemon's, generic over its application) would make on its first turn,
    /// allocating; this needs only `Entry`'s, which the inbox's own type holds.
    @inlinable
    public var hasWaitingEntry: Bool { !stopping.load(ordering: .acquiring) && ring.publishedPosition != nil }

    /// The oldest entry (event loop only), once `hasWaitingEntry` said one waits.
    @inlinable
    public func takeWaiting() -> Entry {
        guard let position = ring.publishedPosition else {
            preconditionFailure("takeWaiting() with no entry waiting: ask hasWaitingEntry first")
        }
        return ring.takeEntry(at: position)
    }

    /// The entries still queued once the loop stopped (`take()` answers `nil` after a stop, so
    /// they would go untaken): each was accepted, so whoever stops can name them instead of
    /// dropping them in silence. Call only after the event loop has stopped.
    public func takeLeftovers() -> [Entry] {
        var entries: [Entry] = []
        while let (entry, _) = ring.take() { entries.append(entry) }
        return entries
    }

    /// Makes the descriptor unreadable (event loop only, before taking the entries it announced).
    public func clearWakeUps() {
        wakeUp.clear()
    }

    /// Entries waiting.
    public var depth: Int { ring.claimedCount }

    /// Entries refused because the inbox was full.
    public var refusedCount: Int { refusals.load(ordering: .relaxed) }
}
