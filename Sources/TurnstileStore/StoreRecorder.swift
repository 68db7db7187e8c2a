import ControllerFSM
import Dispatch
import Foundation
import Synchronization
import Turnstile

/// The thread that makes the controller's counts durable: it drains the controller's ledger ring
/// every `drainInterval`, commits the batch to the `CountStore`, and only then publishes the
/// committed totals. The controller only writes into the ring; it never waits for the disk.
///
/// If a write fails (a full disk, an I/O error), the recorder reports it once through
/// `onFailure`, stops writing and keeps draining the ring, so the controller never notices: the
/// daemon goes degraded, the totals stop at the last commit.
///
/// It also applies the store's retention when it starts and every `retentionInterval`.
public final class StoreRecorder: Sendable {
    /// How often the ring is drained: short enough that a reported count is at most this old,
    /// long enough that a busy turnstile's steps share a commit (each commit is one fsync).
    public static let drainInterval: Duration = .milliseconds(20)
    /// Entries a batch reserves room for up front, so a steady stream does not regrow the array:
    /// 20 ms at well over the 10,000 steps/s the recorder must sustain.
    static let batchCapacity = 1024
    /// A ledger ring size for the controller (a suggestion; the daemon chooses): a second and a
    /// half of steps at 10,000 a second, so a commit stalled by a slow disk (an SD card's fsync
    /// can take hundreds of milliseconds) loses no entry. About 2 MB of `LedgerEntry`.
    public static let recommendedLedgerCapacity = 16_384
    /// How often old events are deleted (`CountStore.applyRetention`): retention is counted in
    /// days, so an hour late is nothing, and each pass costs a scan of the time index.
    public static let retentionInterval: Duration = .seconds(3600)

    private let store: CountStore
    private let ledger: RecordRing<LedgerEntry>
    private let interval: Duration
    private let onCommit: @Sendable (DurableTotals) -> Void
    private let onFailure: @Sendable (StoreError) -> Void
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let failed = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - store: the store, with its session begun.
    ///   - ledger: the controller's ledger ring; this recorder must be its only reader.
    ///   - drainInterval: the wait between drains (`StoreRecorder.drainInterval` by default).
    ///   - onCommit: called on the recorder's thread with the totals after each commit returned.
    ///   - onFailure: called once, on the recorder's thread, when a write failed.
    public init(
        store: CountStore, ledger: RecordRing<LedgerEntry>, drainInterval: Duration = StoreRecorder.drainInterval,
        onCommit: @escaping @Sendable (DurableTotals) -> Void, onFailure: @escaping @Sendable (StoreError) -> Void
    ) {
        self.store = store
        self.ledger = ledger
        self.interval = drainInterval
        self.onCommit = onCommit
        self.onFailure = onFailure
    }

    /// Whether a write failed and the recorder stopped writing.
    public var hasFailed: Bool { failed.load(ordering: .acquiring) }

    /// Starts the recorder's thread (once; later calls do nothing).
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in run() }
        thread.name = "turnstiled-store"
        thread.start()
    }

    /// Stops the thread after a last drain and commit, and returns when that commit is done:
    /// every entry the controller recorded before this call is then durable (unless a write
    /// failed). Stop the controller first, so nothing is recorded after the last drain.
    public func stopAndWait() {
        guard started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        var batch: [LedgerEntry] = []
        batch.reserveCapacity(Self.batchCapacity)
        let timeout = Self.dispatchInterval(interval)
        let clock = ContinuousClock()
        var nextRetention = clock.now
        while true {
            if clock.now >= nextRetention && !failed.load(ordering: .relaxed) {
                nextRetention = clock.now + Self.retentionInterval
                do {
                    try store.applyRetention(now: Date())
                } catch {
                    failed.store(true, ordering: .releasing)
                    onFailure(error)
                }
            }
            // Read the flag before draining: an entry recorded before `stopAndWait` is then in
            // this drain or an earlier one.
            let last = stopping.load(ordering: .acquiring)
            ledger.drain { batch.append($0) }
            if !batch.isEmpty && !failed.load(ordering: .relaxed) {
                do {
                    let totals = try store.append(batch)
                    onCommit(totals)
                } catch {
                    failed.store(true, ordering: .releasing)
                    onFailure(error)
                }
            }
            batch.removeAll(keepingCapacity: true)
            if last { break }
            _ = wake.wait(timeout: .now() + timeout)
        }
        finished.signal()
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
