import ControllerFSM
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import ControllerHost

/// The thread that makes the controller's counts durable: it drains the controller's ledger ring
/// every `drainInterval`, commits the batch to the `CountStore`, and only then publishes the
/// committed totals. The controller only writes into the ring; it never waits for the disk.
///
/// A write that fails (a full disk, an I/O error) is tried again, after `retryFirstDelay`
/// doubling up to `retryMaximumDelay`, until it commits: the failure is reported once through
/// `onFailure` (the daemon goes degraded), the commit that ends it through `onRecovered` (the
/// daemon runs again). Meanwhile the ring keeps being drained into memory, so the controller
/// never notices and its ring never fills. Entries carry cumulative counters, so past
/// `maximumPendingEntries` the newest replaces the last one kept: every total stays exact, and
/// only the detail of when those steps happened is lost, counted (`StoreRecovery.detailLost`).
///
/// At `stopAndWait` whatever the store still cannot take is kept beside it
/// (`CountStore.keepUnwritten`) for the next start, and returned so the daemon says so.
///
/// It also applies the store's retention when it starts and every `retentionInterval`.
public final class StoreRecorder<App: ControllerApplication>: Sendable {
    /// How often the ring is drained: short enough that a reported count is at most this old,
    /// long enough that a busy controller's steps share a commit (each commit is one fsync).
    public static var drainInterval: Duration { .milliseconds(20) }
    /// Entries a batch reserves room for up front, so a steady stream does not regrow the array:
    /// 20 ms at well over the 10,000 steps/s the recorder must sustain.
    static var batchCapacity: Int { 1024 }
    /// A ledger ring size for the controller (a suggestion; the daemon chooses): a second and a
    /// half of steps at 10,000 a second, so a commit stalled by a slow disk (an SD card's fsync
    /// can take hundreds of milliseconds) loses no entry. About 6 MB of the turnstile's
    /// `LedgerEntry` (360 bytes each).
    public static var recommendedLedgerCapacity: Int { 16_384 }
    /// How often old events are deleted (`CountStore.applyRetention`): retention is counted in
    /// days, so an hour late is nothing, and each pass costs a scan of the time index.
    public static var retentionInterval: Duration { .seconds(3600) }
    /// The wait before a failed write is tried again: soon enough that a disk freed by an
    /// operator is used at once.
    public static var retryFirstDelay: Duration { .milliseconds(100) }
    /// The longest wait between tries, which the wait doubles up to: a full disk is not hammered,
    /// and counts wait at most this long after space comes back.
    public static var retryMaximumDelay: Duration { .seconds(5) }
    /// Entries kept in full while the store cannot write: hours of a real turnstile, six seconds
    /// of the 10,000 steps/s the recorder sustains; about 24 MB of the turnstile's `LedgerEntry`.
    public static var maximumPendingEntries: Int { 65_536 }

    private let store: CountStore<App>
    private let ledger: RecordRing<LedgerEntry<App>>
    private let interval: Duration
    private let maximumPending: Int
    private let retryDelays: ClosedRange<Duration>
    private let doorbell: Doorbell?
    private let onCommit: @Sendable (DurableTotals<App>) -> Void
    private let onFailure: @Sendable (StoreError) -> Void
    private let onRecovered: @Sendable (StoreRecovery) -> Void
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let failed = Atomic<Bool>(false)
    private let closing = Guarded<LedgerEntry<App>?>(nil)
    private let ending = Guarded<StoreRecorder.Ending>(.complete)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - store: the store, with its session begun.
    ///   - ledger: the controller's ledger ring; this recorder must be its only reader.
    ///   - drainInterval: the wait between drains (`StoreRecorder.drainInterval` by default).
    ///   - maximumPendingEntries: entries kept in full while the store cannot write (tests make
    ///     it small).
    ///   - retryDelays: the first and the longest wait before a failed write is tried again.
    ///   - doorbell: rung by the controller after it records (its report watermark's): with one,
    ///     the recorder sleeps on it while the ledger stays empty instead of waking every
    ///     `drainInterval`, with no timeout but retention's turn (an idle recorder makes no
    ///     wake-ups). The doorbell fences on both sides, so the sleep's look at the ledger (its
    ///     head, loaded acquiring) sees any entry recorded before the ring, or the ring wakes
    ///     it (see `Doorbell`): no entry waits for a later one.
    ///   - onCommit: called on the recorder's thread with the totals after each commit returned.
    ///   - onFailure: called on the recorder's thread when a write failed after the last one
    ///     committed (once per outage).
    ///   - onRecovered: called on the recorder's thread when a write commits after a failure.
    public init(
        store: CountStore<App>, ledger: RecordRing<LedgerEntry<App>>, drainInterval: Duration = StoreRecorder.drainInterval,
        maximumPendingEntries: Int = StoreRecorder.maximumPendingEntries,
        retryDelays: ClosedRange<Duration> = StoreRecorder.retryFirstDelay...StoreRecorder.retryMaximumDelay,
        doorbell: Doorbell? = nil,
        onCommit: @escaping @Sendable (DurableTotals<App>) -> Void, onFailure: @escaping @Sendable (StoreError) -> Void,
        onRecovered: @escaping @Sendable (StoreRecovery) -> Void = { _ in }
    ) {
        precondition(maximumPendingEntries >= 2, "the recorder keeps at least two pending entries, got \(maximumPendingEntries)")
        self.store = store
        self.ledger = ledger
        self.interval = drainInterval
        self.maximumPending = maximumPendingEntries
        self.retryDelays = retryDelays
        self.doorbell = doorbell
        self.onCommit = onCommit
        self.onFailure = onFailure
        self.onRecovered = onRecovered
    }

    /// How a recorder's work ended.
    public enum Ending: Sendable, Equatable {
        /// Every entry recorded before the stop is in the database.
        case complete
        /// The store could not take the last entries (`error`): their counts were kept in `path`
        /// (`kept`), or, if `keepError` says why not, nowhere but the daemon's log.
        case unwritten(UnwrittenCounts<App>, path: String, error: StoreError, keepError: StoreError?)
    }

    /// Whether the last write failed (the recorder is retrying it).
    public var hasFailed: Bool { failed.load(ordering: .acquiring) }

    /// Starts the recorder's thread (once; later calls do nothing).
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        DetachedThread.start(name: "\(App.daemonName)-store") { [self] in run() }
    }

    /// Stops the thread after a last drain and commit, and returns when that commit is done:
    /// every entry the controller recorded before this call is then durable, or kept beside the
    /// database if the store still cannot write (then the ending says so). Stop the controller
    /// first, so nothing is recorded after the last drain.
    ///
    /// - Parameter closingEntry: where the controller stood at its stop (time, state, gauges,
    ///   counters), committed after the ring's last entries if it differs from them: the totals
    ///   are then right even if the ring lost entries (it was full) and no later one came.
    @discardableResult
    public func stopAndWait(closingEntry: LedgerEntry<App>? = nil) -> Ending {
        guard started.load(ordering: .acquiring), !stopping.load(ordering: .acquiring) else { return ending.withLock { $0 } }
        closing.withLock { $0 = closingEntry }
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake.signal()
        doorbell?.ringAlways()
        finished.wait()
        return ending.withLock { $0 }
    }

    /// The recorder thread's own state: what waits to be committed, and the outage if any.
    private struct Pending {
        var entries: [LedgerEntry<App>] = []
        /// The newest entry given to the store or kept here: a closing entry equal to it adds
        /// nothing.
        var newest: LedgerEntry<App>?
        /// Entries replaced while `entries` was full (their detail is lost, not their counts).
        var replaced = 0
        /// When the current outage began; nil while writes commit.
        var failingSince: ContinuousClock.Instant?
        var delay = Duration.zero
        var retryAt: ContinuousClock.Instant?
        var lastError: StoreError?
    }

    private func keep(_ entry: LedgerEntry<App>, in pending: inout Pending) {
        if pending.entries.count < maximumPending {
            pending.entries.append(entry)
        } else {
            pending.entries[pending.entries.count - 1] = entry
            pending.replaced += 1
        }
        pending.newest = entry
    }

    private func run() {
        var pending = Pending()
        pending.entries.reserveCapacity(Self.batchCapacity)
        let clock = ContinuousClock()
        var nextRetention = clock.now
        while true {
            if clock.now >= nextRetention && pending.failingSince == nil {
                nextRetention = clock.now + Self.retentionInterval
                do {
                    try store.applyRetention(now: Date())
                } catch {
                    // Retention is tried again at the next interval; the outage is the writes'.
                    fail(error, &pending, clock)
                    pending.retryAt = clock.now
                }
            }
            // Read the flag before draining: an entry recorded before `stopAndWait` is then in
            // this drain or an earlier one.
            let last = stopping.load(ordering: .acquiring)
            let drained = ledger.drain { keep($0, in: &pending) }
            if last, let closingEntry = closing.withLock({ $0 }), Self.adds(closingEntry, to: pending.newest) {
                keep(closingEntry, in: &pending)
            }
            if !pending.entries.isEmpty && (last || pending.retryAt.map { clock.now >= $0 } ?? true) {
                commit(&pending, clock)
            }
            if last {
                finish(&pending)
                break
            }
            if let doorbell, drained == 0, pending.entries.isEmpty, pending.failingSince == nil {
                // Idle: sleep until the controller records or the stop; with a retention, until
                // its turn at the latest (a configured timer, hourly); without, for as long as
                // nothing happens.
                let wait = store.retentionDays == nil ? nil : Self.nanoseconds(max(nextRetention - clock.now, .zero))
                doorbell.sleep(nanoseconds: wait) {
                    stopping.load(ordering: .sequentiallyConsistent) || ledger.pendingCount > 0
                }
                continue
            }
            var wait = interval
            if let retryAt = pending.retryAt { wait = min(wait, max(retryAt - clock.now, .zero)) }
            _ = self.wake.wait(timeout: .now() + Self.dispatchInterval(wait))
        }
        finished.signal()
    }

    /// Whether the controller's closing entry says more than the newest entry seen: if the ring
    /// lost the last entries (it was full), only the closing one brings their counts.
    private static func adds(_ closing: LedgerEntry<App>, to newest: LedgerEntry<App>?) -> Bool {
        guard let newest else { return closing.counters.values.contains { $0 != 0 } || closing.gauges.values.contains { $0 != 0 } }
        return closing.counters != newest.counters || closing.state != newest.state || closing.gauges != newest.gauges
    }

    private func commit(_ pending: inout Pending, _ clock: ContinuousClock) {
        do {
            let totals = try store.append(pending.entries)
            let committed = pending.entries.count
            pending.entries.removeAll(keepingCapacity: true)
            if pending.entries.capacity > Self.batchCapacity * 4 {
                // An outage's backlog is not kept reserved for ever.
                pending.entries = []
                pending.entries.reserveCapacity(Self.batchCapacity)
            }
            onCommit(totals)
            if let since = pending.failingSince {
                let recovery = StoreRecovery(
                    committedEntries: committed, detailLost: pending.replaced, outage: clock.now - since,
                    lastError: pending.lastError)
                pending = Pending(newest: pending.newest)
                failed.store(false, ordering: .releasing)
                onRecovered(recovery)
            }
        } catch {
            fail(error, &pending, clock)
        }
    }

    private func fail(_ error: StoreError, _ pending: inout Pending, _ clock: ContinuousClock) {
        if pending.failingSince == nil {
            pending.failingSince = clock.now
            pending.delay = retryDelays.lowerBound
            failed.store(true, ordering: .releasing)
            onFailure(error)
        } else {
            pending.delay = min(pending.delay * 2, retryDelays.upperBound)
        }
        pending.lastError = error
        pending.retryAt = clock.now + pending.delay
    }

    /// At the stop: what the store could not take is kept beside it.
    private func finish(_ pending: inout Pending) {
        guard !pending.entries.isEmpty, let error = pending.lastError else { return }
        let path = store.unwrittenPath
        let counts: UnwrittenCounts<App>?
        do {
            counts = try store.unwrittenCounts(of: pending.entries)
        } catch let countError {
            let nothing = UnwrittenCounts<App>(session: 0, time: 0, state: App.table.startState, gauges: [:], counts: [:])
            ending.withLock { $0 = .unwritten(nothing, path: path, error: error, keepError: countError) }
            return
        }
        guard let counts else { return }
        do {
            try store.keep(counts)
            ending.withLock { $0 = .unwritten(counts, path: path, error: error, keepError: nil) }
        } catch let keepError {
            ending.withLock { $0 = .unwritten(counts, path: path, error: error, keepError: keepError) }
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}

/// What a recorder tells when the store writes again after failing.
public struct StoreRecovery: Sendable, Equatable {
    /// Entries committed by the write that succeeded (those that waited, and newer ones).
    public var committedEntries: Int
    /// Entries whose detail (when each count happened) was merged into a later entry because
    /// more waited than `StoreRecorder.maximumPendingEntries`: their counts are in the totals.
    public var detailLost: Int
    /// How long the store could not write.
    public var outage: Duration
    /// The last failure before it wrote again.
    public var lastError: StoreError?
}
