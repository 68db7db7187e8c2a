import ControllerFSM
import Dispatch
import Foundation
import Synchronization
import Turnstile

/// The thread that tells what the event loop did: it drains the controller's trace and output
/// log every ``drainInterval`` and prints them (text or JSON lines, as `simulate` does), with
/// times in seconds since the controller started. Printing allocates and may block on a slow
/// pipe; doing it here keeps both off the event loop.
final class RunReporter: @unchecked Sendable {
    // Safety: `printer` and `reportedLostEdges` are touched by the reporting thread only, from
    // `start()` until `stopAndWait()` returns, and by the caller only before and after.
    /// How often the rings are drained: short enough for a person watching, long enough to
    /// cost nothing. The rings hold far more than arrives in this time.
    static let drainInterval: Int64 = 20_000_000

    private let trace: RecordRing<DispatchRecord<TurnstileState, TurnstileEvent>>
    private let outputLog: RecordRing<OutputWrite>
    private let status: RunStatus
    private let origin: MachineInstant
    private let printer: any SimulationReporter
    private let json: Bool
    private var reportedLostEdges = 0
    /// Trace and output records lost so far that a warning has already told of.
    private var reportedUnprinted = 0
    /// Edge-to-lock-write latencies, in microseconds (from the event's time to the write's
    /// return): the event loop's whole path, kernel delivery and wake-up included.
    private var lockLatencies: [Int64] = []
    private let stopRequested = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(
        trace: RecordRing<DispatchRecord<TurnstileState, TurnstileEvent>>, outputLog: RecordRing<OutputWrite>,
        status: RunStatus, origin: MachineInstant, printer: any SimulationReporter, json: Bool
    ) {
        self.trace = trace
        self.outputLog = outputLog
        self.status = status
        self.origin = origin
        self.printer = printer
        self.json = json
    }

    func start() {
        Thread { [self] in
            while !stopRequested.load(ordering: .acquiring) {
                drain()
                Syscalls.sleep(nanoseconds: Self.drainInterval)
            }
            drain()
            finished.signal()
        }.start()
    }

    /// Percentiles of the edge-to-lock latency, in microseconds; read after ``stopAndWait()``.
    var lockLatency: (samples: Int, p50: Int64, p99: Int64, max: Int64)? {
        guard !lockLatencies.isEmpty else { return nil }
        let sorted = lockLatencies.sorted()
        func percentile(_ p: Int) -> Int64 { sorted[Swift.min(sorted.count - 1, sorted.count * p / 100)] }
        return (sorted.count, percentile(50), percentile(99), sorted[sorted.count - 1])
    }

    /// Reports what is left and stops the thread.
    func stopAndWait() {
        stopRequested.store(true, ordering: .releasing)
        finished.wait()
    }

    /// Both rings, merged by time; at one instant a dispatch comes before the writes it caused.
    private func drain() {
        var records: [DispatchRecord<TurnstileState, TurnstileEvent>] = []
        trace.drain { records.append($0) }
        var writes: [OutputWrite] = []
        outputLog.drain { writes.append($0) }
        var next = 0
        for write in writes {
            while next < records.count && records[next].time <= write.time {
                report(records[next])
                next += 1
            }
            printer.output(write.role, value: write.value, at: relative(write.time))
            if write.role == .lock, let completed = write.completed {
                lockLatencies.append((completed.nanoseconds &- write.time.nanoseconds) / 1_000)
            }
        }
        for record in records[next...] { report(record) }
        reportLostEdges()
        // Never expected (the rings hold minutes of events); said once per new loss, not on
        // every drain after it.
        let unprinted = trace.lostCount + outputLog.lostCount
        if unprinted > reportedUnprinted {
            reportedUnprinted = unprinted
            Terminal.error("warning: the report fell behind: \(trace.lostCount) transitions and \(outputLog.lostCount) output writes were not printed")
        }
    }

    private func report(_ record: DispatchRecord<TurnstileState, TurnstileEvent>) {
        var shifted = record
        shifted.time = relative(record.time)
        printer.dispatched(shifted)
    }

    private func reportLostEdges() {
        let lost = status.lostEdges
        guard lost > reportedLostEdges else { return }
        let new = lost - reportedLostEdges
        reportedLostEdges = lost
        if json {
            print(#"{"type":"lost","edges":\#(new),"total":\#(lost)}"#)
        } else {
            Terminal.error("warning: \(new) input edge(s) were lost before they could be read (\(lost) in all): the kernel's event buffer overflowed")
        }
    }

    private func relative(_ time: MachineInstant) -> MachineInstant {
        MachineInstant(nanoseconds: time.nanoseconds &- origin.nanoseconds)
    }
}
