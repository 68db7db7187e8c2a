import ControllerFSM
import ControllerStore
import ControllerHost

/// The rings the controller writes as it runs, each drained by another thread: the trace and
/// the output log (printed, logged, status), the ledger (the store, or status without one), the
/// input log (the flight recorder, with `--record`), and the watermark that says how far they
/// are filled and wakes the drainers when they sleep.
struct ControllerRings<App: ControllerApplication, Chip: GPIOChip> {
    /// Room for the records made between two drains (RunReporter.drainInterval), many times over.
    static var reportCapacity: Int { 4096 }

    let trace = Controller<App, Chip>.Trace(capacity: reportCapacity)
    let outputLog = Controller<App, Chip>.OutputLog(capacity: reportCapacity)
    let ledger = Controller<App, Chip>.Ledger(capacity: StoreRecorder<App>.recommendedLedgerCapacity)
    let inputLog: Controller<App, Chip>.InputLog?
    let watermark = ReportWatermark()

    init(recordingInputs: Bool) {
        inputLog = recordingInputs ? Controller<App, Chip>.InputLog(capacity: Self.reportCapacity) : nil
    }
}
