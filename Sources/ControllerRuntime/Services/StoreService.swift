import ControllerDaemon
import ControllerFSM
import ControllerStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import ServiceLifecycle
import ControllerHost

/// The durable counts as a service of the daemon's group. The database is opened before any
/// line is touched (a damaged one is refused first), the session begins after the self-test
/// (its time 0 is the run's) and the recorder's thread drains the controller's ledger into it
/// from then on; in the drain, after the report, every count the controller made is committed
/// — where it stood at the stop last, in case its ring lost the last steps — and the session
/// ends, before the lines are released.
final class StoreService<App: ControllerApplication>: Service, @unchecked Sendable {
    // Safety: the closing entry is read once, in the drain, after the event loop stopped.
    private let store: CountStore<App>
    private let recorder: StoreRecorder<App>
    /// Steps the ledger ring could not keep, read at the stop.
    private let lostSteps: () -> Int
    /// Where the controller stood when the loop stopped.
    private let closingEntry: () -> LedgerEntry<App>
    private let logger: Logger

    /// `--database`, opened; nil without one (said in the log). A database that cannot be used is
    /// said on standard error and exits 4.
    static func open(_ path: String?, retentionDays: Int?, parts: DaemonParts<App>) throws -> CountStore<App>? {
        guard let path else {
            parts.logger.notice("no --database: counts are kept in memory only and lost at exit")
            return nil
        }
        do {
            return try CountStore<App>.open(path: path, retentionDays: retentionDays)
        } catch {
            let stop = ControllerExit.of(error, otherwise: ControllerExit.storeError).said("\(error)", cause: error)
            parts.lifecycle.send(.selfTestFailed)
            throw stop
        }
    }

    /// Begins the run's session at `origin` (taking in what a stopped run could not write, and
    /// publishing the durable totals), then starts the thread that drains `ledger` into the
    /// store. A failure is said on standard error, runs `abandon` and exits 4.
    init(
        beginning store: CountStore<App>, ledger: RecordRing<LedgerEntry<App>>, doorbell: Doorbell, origin: MachineInstant, parts: DaemonParts<App>,
        onCommit: @escaping @Sendable (DurableTotals<App>) -> Void = { _ in },
        closingEntry: @escaping () -> LedgerEntry<App>, abandon: () -> Void
    ) throws {
        let (status, lifecycle, logger) = (parts.status, parts.lifecycle, parts.logger)
        do {
            let found = store.pendingUnwritten
            let totals = try store.beginSession(monotonicOrigin: origin, wallClockOrigin: Date())
            if let found {
                logger.notice("\(store.path): took in \(found.total) count(s) a stopped run could not write (\(found.summary)) from \(store.unwrittenPath), and removed it")
            }
            status.publishDurable(counters: totals.counters, gauges: totals.gauges)
            for gauge in App.gauges {
                guard let voided = gauge.voidedByRestart, totals[voided] > 0 else { continue }
                logger.notice("\(store.path): \(totals[voided]) \(gauge.name)(s) in all were standing when a run ended; counted as \(voided)")
            }
        } catch {
            let stop = ControllerExit.storeError.said("\(error)", cause: error)
            lifecycle.send(.selfTestFailed)
            abandon()
            throw stop
        }
        recorder = StoreRecorder<App>(
            store: store, ledger: ledger, doorbell: doorbell,
            onCommit: { totals in
                status.publishDurable(counters: totals.counters, gauges: totals.gauges)
                onCommit(totals)
            },
            onFailure: { error in
                logger.error("\(error); the counts wait in memory and the write is tried again until it succeeds", metadata: JournalRecordKind.storeOutage.metadata())
                lifecycle.send(.storeLost)
            },
            onRecovered: { recovery in
                var line = "\(store.path) writes again after \(recovery.outage.secondsText) s: \(recovery.committedEntries) waiting step(s) committed"
                if recovery.detailLost > 0 {
                    line += "; \(recovery.detailLost) step(s) waited past \(StoreRecorder<App>.maximumPendingEntries) and are in the totals without their own rows"
                }
                logger.notice("\(line)")
                lifecycle.send(.storeRecovered)
            })
        self.store = store
        self.closingEntry = closingEntry
        self.logger = logger
        lostSteps = { ledger.lostCount }
        recorder.start()
    }

    /// A later start-up step failed: what the ledger holds is written, and the thread stops.
    func abandon() {
        _ = recorder.stopAndWait()
    }

    func run() async {
        try? await gracefulShutdown()
        report(recorder.stopAndWait(closingEntry: closingEntry()))
        try? store.endSession(at: Date())
    }

    /// Says loudly what the store could not take at the stop, and where it is kept.
    private func report(_ ending: StoreRecorder<App>.Ending) {
        let lostSteps = lostSteps()
        if lostSteps > 0 {
            logger.warning("the ledger ring was full for \(lostSteps) step(s): their counts are in the totals, without their own rows")
        }
        guard case .unwritten(let counts, let path, let error, let keepError) = ending else { return }
        if let keepError {
            logger.critical("\(error); at the stop the store still could not write, and the counts could not be kept either (\(keepError)): this run's counts are only in this log: \(counts.summary), state \(counts.state.name)\(gauges(counts))", metadata: JournalRecordKind.storeOutage.metadata())
        } else {
            logger.critical("\(error); at the stop the store still could not write \(counts.total) count(s) (\(counts.summary)\(gauges(counts))): kept in \(path), which the next start writes into the database (stats shows them meanwhile)", metadata: JournalRecordKind.storeOutage.metadata())
        }
    }

    /// `, credit 2`: each gauge that stood, as the log says it after the counts.
    private func gauges(_ counts: UnwrittenCounts<App>) -> String {
        App.gauges.map { ", \($0.name) \(counts.gauges[$0.name] ?? 0)" }.joined()
    }
}
