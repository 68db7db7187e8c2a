import ControllerFSM
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import ControllerHost
import ControllerSimulation
import ControllerDaemon
import ControllerHTTP

/// The thread that tells and keeps what the event loop did. Every ``drainInterval`` while steps
/// come (and at once when one comes after a quiet spell: it sleeps on the watermark's doorbell
/// meanwhile, with no timeout, so an idle daemon does not wake) it drains
/// the controller's rings: the trace (printed or logged, and the last transitions for status),
/// the output log (printed, and the edge-to-relay latency), the input log (the flight
/// recorder) and, with no store, the ledger (the counts status shows). Printing allocates and
/// may block on a slow pipe; doing it here keeps both off the event loop.
final class RunReporter<App: ControllerApplication>: @unchecked Sendable {
    // Safety: the mutable fields are touched by the reporting thread only, from `start()` until
    // `stopAndWait()` returns, and by the caller only before and after.
    /// How often the rings are drained: short enough for a person watching, long enough to
    /// cost nothing. The rings hold far more than arrives in this time.
    static var drainInterval: Int64 { 20_000_000 }

    typealias Trace = RecordRing<DispatchRecord<App.State, App.Event>>

    private let trace: Trace
    private let outputLog: RecordRing<OutputWrite>
    /// Published by the controller after each call; its doorbell wakes this thread when idle.
    private let watermark: ReportWatermark
    /// The trace and the output log, whole steps at a time.
    private var steps: WholeStepReader<App>
    private let inputLog: RecordRing<InputRecord<App>>?
    /// Drained here only when no store does it.
    private let ledger: RecordRing<LedgerEntry<App>>?
    private let status: StatusHub<App>
    private let lostEdges: @Sendable () -> Int
    private let origin: MachineInstant
    private let printer: any SimulationReporter<App>
    private let warnings: DaemonWarnings
    private let recorder: FlightRecorder<App>?
    private let notifier: SystemdNotifier
    private let onWriteLatency: (@Sendable (Int64) -> Void)?
    /// The output whose writes are timed from the event that caused them
    /// (``ControllerApplication/latencyOutput``: the turnstile's lock).
    let latencyRole = App.latencyOutput
    private var reportedLostEdges = 0
    private var reportedOverrides = 0
    private var heldOutputs: [String: String] = [:]
    private var reportedNotifyFailures = 0
    /// Each transition, for `ctl events --follow`; set before ``start()``.
    var publishTransition: ((TransitionSummary) -> Void)?
    private var reportedUnprinted = 0
    private var recorderWarned = false
    /// Edge-to-write latencies of ``latencyRole``, in microseconds (from the event's time to the
    /// write's return): the event loop's whole path, kernel delivery and wake-up included.
    private var writeLatencies: [Int64] = []
    private let stopRequested = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(
        trace: Trace, outputLog: RecordRing<OutputWrite>, watermark: ReportWatermark, inputLog: RecordRing<InputRecord<App>>?, ledger: RecordRing<LedgerEntry<App>>?,
        status: StatusHub<App>, lostEdges: @escaping @Sendable () -> Int, origin: MachineInstant, printer: any SimulationReporter<App>,
        warnings: DaemonWarnings, recorder: FlightRecorder<App>?, notifier: SystemdNotifier, onWriteLatency: (@Sendable (Int64) -> Void)?
    ) {
        self.trace = trace
        self.outputLog = outputLog
        steps = WholeStepReader<App>(trace: trace, outputLog: outputLog, watermark: watermark)
        self.watermark = watermark
        self.inputLog = inputLog
        self.ledger = ledger
        self.status = status
        self.lostEdges = lostEdges
        self.origin = origin
        self.printer = printer
        self.warnings = warnings
        self.recorder = recorder
        self.notifier = notifier
        self.onWriteLatency = onWriteLatency
    }

    func start() {
        // What the self-test wrote (the outputs' first changes) is reported here, on the
        // caller's thread: after the lifecycle's "running", before the daemon's ready record,
        // always (the thread raced both).
        drain()
        // Lost edges, outputs held and systemd's hearing change on the event loop's thread
        // after its controller published: status notes them and rings the doorbell too. (The
        // store's recorder sleeps on the same doorbell: such a change, rare, wakes it once to
        // find its ledger empty.)
        status.changes.watch(with: watermark.doorbell)
        DetachedThread.start(name: "reporter") { [self] in
            var drained: UInt64?
            while !stopRequested.load(ordering: .acquiring) {
                let published = watermark.current
                let changes = status.changes.count
                drain()
                if published != drained {
                    // Busy: look again after the interval, so that the controller never pays a
                    // wake per event while steps keep coming.
                    drained = published
                    MonotonicClock.sleep(nanoseconds: Self.drainInterval)
                } else {
                    // Idle: sleep until the controller publishes (a step, or a record of the
                    // input log or the ledger without one), status changes, or the stop. A
                    // recording's file is also looked at every `fileCheckInterval` (the only
                    // timer, and only with --record).
                    watermark.doorbell.sleep(nanoseconds: recorder.map { _ in Self.fileCheckNanoseconds }) {
                        stopRequested.load(ordering: .sequentiallyConsistent) || watermark.current != published
                            || status.changes.count != changes || (inputLog?.pendingCount ?? 0) > 0 || (ledger?.pendingCount ?? 0) > 0
                    }
                }
            }
            drain(everything: true)
            finished.signal()
        }
    }

    /// How often an idle reporter looks at the recording's file: a recording deleted or
    /// replaced while nothing happens is said within this.
    private static var fileCheckNanoseconds: Int64 { FlightRecorder<App>.fileCheckInterval.nanosecondCount }

    /// Percentiles of the edge-to-write latency, in microseconds; read after ``stopAndWait()``.
    var writeLatency: (samples: Int, p50: Int64, p99: Int64, max: Int64)? {
        guard !writeLatencies.isEmpty else { return nil }
        let sorted = writeLatencies.sorted()
        func percentile(_ p: Int) -> Int64 { sorted[Swift.min(sorted.count - 1, sorted.count * p / 100)] }
        return (sorted.count, percentile(50), percentile(99), sorted[sorted.count - 1])
    }

    /// Reports what is left, closes the recording at `end`, and stops the thread.
    func stopAndWait(end: MachineInstant) {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        watermark.doorbell.ringAlways()
        finished.wait()
        recorder?.finish(at: end)
        if let failure = recorder?.failure, !recorderWarned { warnings.refused("recording: \(failure)") }
    }

    /// The trace and the output log, whole steps merged by time (``WholeStepReader<App>``); all
    /// that is left when `everything` (the last drain, with the controller stopped). Then the
    /// other rings.
    private func drain(everything: Bool = false) {
        var records: [DispatchRecord<App.State, App.Event>] = []
        steps.read(everything: everything) { record in
            records.append(record)
            report(record)
        } write: { write in
            printer.output(write.role, value: write.value, at: relative(write.time))
            if write.role == latencyRole, let completed = write.completed {
                let nanoseconds = completed.nanoseconds &- write.time.nanoseconds
                writeLatencies.append(nanoseconds / 1_000)
                onWriteLatency?(nanoseconds)
            }
        }
        // Every row taken, internal ones marked, with the superstate it was written in: what
        // `--json` says of each (JSONReporter).
        let transitions = records.filter { $0.outcome == .transitioned || $0.outcome == .handledInternally }.map {
            TransitionSummary(
                time: relative($0.time).seconds, from: $0.from.name, event: $0.event.name, to: $0.to.name,
                isInternal: $0.outcome == .handledInternally, row: App.table.rowOf($0)?.name)
        }
        if let publishTransition { transitions.forEach(publishTransition) }
        status.publishTransitions(
            transitions,
            traceLosses: trace.lostCount + outputLog.lostCount + (inputLog?.lostCount ?? 0) + (ledger?.lostCount ?? 0))
        if let inputLog, let recorder {
            inputLog.drain { recorder.take($0) }
            recorder.checkFile()
            if let failure = recorder.failure, !recorderWarned {
                recorderWarned = true
                warnings.refused("recording: \(failure)")
            }
        }
        if let ledger {
            var last: LedgerEntry<App>?
            ledger.drain { last = $0 }
            if let last { status.publishDurable(after: last) }
        }
        reportLostEdges()
        reportOverrides()
        reportNotifyFailures()
        let unprinted = trace.lostCount + outputLog.lostCount
        if unprinted > reportedUnprinted {
            reportedUnprinted = unprinted
            warnings.reportFellBehind(transitions: trace.lostCount, writes: outputLog.lostCount)
        }
    }

    private func report(_ record: DispatchRecord<App.State, App.Event>) {
        var shifted = record
        shifted.time = relative(record.time)
        printer.dispatched(shifted)
    }

    /// Each output the host began holding against the machine, once per episode: in the log and
    /// in the run's own report.
    private func reportOverrides() {
        let snapshot = status.snapshot()
        guard snapshot.outputOverrides != reportedOverrides || snapshot.heldOutputs != heldOutputs else { return }
        if snapshot.outputOverrides > reportedOverrides {
            for (role, reason) in snapshot.heldOutputs.sorted(by: { $0.key < $1.key }) where heldOutputs[role] != reason {
                warnings.outputOverridden(role, reason: reason, total: snapshot.outputOverrides)
                printer.outputOverridden(RoleName(role), reason: reason, at: relative(MonotonicClock().now()))
            }
        }
        reportedOverrides = snapshot.outputOverrides
        heldOutputs = snapshot.heldOutputs
    }

    private func reportLostEdges() {
        let lost = lostEdges()
        guard lost > reportedLostEdges else { return }
        let new = lost - reportedLostEdges
        reportedLostEdges = lost
        printer.lostEdges(new: new, total: lost)
        warnings.lostEdges(new: new, total: lost)
    }

    /// The event loop's `WATCHDOG=1` is sent without a word when it fails (it must not allocate
    /// or block); said here, off the loop, so a restart by systemd's watchdog has its reason in
    /// the journal.
    private func reportNotifyFailures() {
        let failed = notifier.failedSends
        guard failed > reportedNotifyFailures else { return }
        warnings.systemdNotHearing(new: failed - reportedNotifyFailures, total: failed, reason: notifier.lastFailureReason ?? "unknown")
        reportedNotifyFailures = failed
    }

    private func relative(_ time: MachineInstant) -> MachineInstant {
        MachineInstant(nanoseconds: time.nanoseconds &- origin.nanoseconds)
    }
}

extension RunReporter {
    /// The reporter of a daemon's run: drains `rings` (the ledger too when `drainsLedger`, as
    /// no store does it), tells status and the log, and records the lock latency in `metrics`.
    convenience init<Chip: GPIOChip>(
        rings: ControllerRings<App, Chip>, drainsLedger: Bool, parts: DaemonParts<App>, origin: MachineInstant, printer: any SimulationReporter<App>,
        recorder: FlightRecorder<App>?, metrics: ControllerMetrics<App>
    ) {
        self.init(
            trace: rings.trace, outputLog: rings.outputLog, watermark: rings.watermark, inputLog: rings.inputLog,
            ledger: drainsLedger ? rings.ledger : nil, status: parts.status, lostEdges: { [status = parts.status] in status.snapshot().lostEdges },
            origin: origin, printer: printer, warnings: parts.warnings, recorder: recorder, notifier: parts.notifier,
            onWriteLatency: { metrics.recordLockLatency(nanoseconds: $0) })
    }
}

extension SimulationReporter {
    /// JSON reporters print lost edges as a record of their own; others leave it to the log.
    func lostEdges(new: Int, total: Int) {
        if self is JSONReporter<App> { print(JSONLine(type: "lost").int("edges", new).int("total", total).text) }
    }
}
