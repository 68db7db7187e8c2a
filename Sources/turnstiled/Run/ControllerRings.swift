import ControllerCommandLine
import ControllerFSM
import ControllerStore
import ControllerHost
import Turnstile

/// The rings the controller writes as it runs, each drained by another thread: the trace and
/// the output log (printed, logged, status), the ledger (the store, or status without one), the
/// input log (the flight recorder, with `--record`), and the watermark that says how far they
/// are filled and wakes the drainers when they sleep.
struct ControllerRings<Chip: GPIOChip> {
    /// Room for the records made between two drains (RunReporter.drainInterval), many times over.
    static var reportCapacity: Int { 4096 }

    let trace = TurnstileController<Chip>.Trace(capacity: reportCapacity)
    let outputLog = TurnstileController<Chip>.OutputLog(capacity: reportCapacity)
    let ledger = TurnstileController<Chip>.Ledger(capacity: StoreRecorder<TurnstileApplication>.recommendedLedgerCapacity)
    let inputLog: TurnstileController<Chip>.InputLog?
    let watermark = ReportWatermark()

    init(recordingInputs: Bool) {
        inputLog = recordingInputs ? TurnstileController<Chip>.InputLog(capacity: Self.reportCapacity) : nil
    }
}
