import Synchronization

/// The Linux `MachineLock`: a futex lock of our own, Ulrich Drepper's "mutex 2" from "Futexes
/// Are Tricky". Uncontended, taking it is one compare-and-swap and letting go one exchange, both
/// inlined into the caller; only a lock that another thread is waiting for makes a system call.
///
/// The standard library's `Mutex` did more on every event: a thread-id read before each of its
/// two compare-and-swaps. The lock word's acquire and release orderings are what ThreadSanitizer
/// sees, so sanitized builds check this same lock.
///
/// Memory orderings: taking the lock is an acquiring compare-and-swap (or exchange, when
/// contended), letting go a releasing exchange; so everything a holder did happens before
/// whatever the next holder does. A failed try is relaxed: it takes nothing and reads nothing
/// under the lock. The futex needs no more: a waiter marks the word "with waiters" (its
/// exchange) before it sleeps, the kernel compares the word again before it sleeps, and the
/// holder's exchange that lets go sees the mark and wakes it.
public final class MutexLock: MachineLock, @unchecked Sendable {
    // Safety: `word` is only read and written atomically. It is allocated, not a stored
    // `Atomic`, because the kernel needs its address, and that address must not move.
    @usableFromInline let word: UnsafeMutablePointer<Atomic<UInt32>>

    /// The lock word's three values.
    @usableFromInline static var unlocked: UInt32 { 0 }
    @usableFromInline static var locked: UInt32 { 1 }
    /// Held, and some thread is (or may be) asleep waiting for it: letting go must wake one.
    @usableFromInline static var lockedWithWaiters: UInt32 { 2 }

    public init() {
        word = .allocate(capacity: 1)
        word.initialize(to: Atomic(Self.unlocked))
    }

    deinit {
        word.deinitialize(count: 1)
        word.deallocate()
    }

    @inlinable
    public func withLock<Result>(_ body: () -> Result) -> Result {
        if !tryLock() { waitForLock() }
        defer { unlock() }
        return body()
    }

    @inlinable
    public func withLockIfAvailable<Result>(_ body: () -> Result) -> Result? {
        guard tryLock() else { return nil }
        defer { unlock() }
        return body()
    }

    @inlinable
    func tryLock() -> Bool {
        word.pointee.compareExchange(
            expected: Self.unlocked, desired: Self.locked,
            successOrdering: .acquiring, failureOrdering: .relaxed
        ).exchanged
    }

    @inlinable
    func unlock() {
        if word.pointee.exchange(Self.unlocked, ordering: .releasing) == Self.lockedWithWaiters {
            wakeAWaiter()
        }
    }

    /// Contended. The word is set to "with waiters" before each sleep, so whoever holds the lock
    /// wakes someone when it lets go; a thread that gets the lock this way leaves it so marked,
    /// which may cost one needless wake but never a lost one.
    @usableFromInline @inline(never)
    func waitForLock() {
        while word.pointee.exchange(Self.lockedWithWaiters, ordering: .acquiring) != Self.unlocked {
            Futex.wait(on: word, whileItHolds: Self.lockedWithWaiters)
        }
    }

    @usableFromInline @inline(never)
    func wakeAWaiter() {
        Futex.wakeOne(on: word)
    }
}

/// A `SharedMachine` on Linux: a `MutexLock`, and time from `CLOCK_MONOTONIC` or, in tests and
/// the simulator, a `ManualClock`.
public typealias ConcurrentMachine<State: MachineSymbol, Event: MachineSymbol, Context, Clock: MachineClock> =
    SharedMachine<State, Event, Context, RuntimeObservers<State, Event>, MutexLock, Clock>
