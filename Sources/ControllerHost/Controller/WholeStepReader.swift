import ControllerFSM

/// Reads the controller's trace and output log on another thread, whole steps at a time (up to
/// the ``ReportWatermark``, read before either ring), merged by time: at one instant a dispatch
/// comes before the writes it caused. What was drained past the watermark waits here for the
/// next read, so a transition is never told before its writes are there to be told with it.
package struct WholeStepReader<App: ControllerApplication> {
    package typealias Record = DispatchRecord<App.State, App.Event>

    private let trace: RecordRing<Record>
    private let outputLog: RecordRing<OutputWrite>
    private let watermark: ReportWatermark
    private var heldRecords: [Record] = []
    private var heldWrites: [OutputWrite] = []
    /// How many of each have been handed out, modulo 2^32 as the watermark counts.
    private var recordsRead: UInt32 = 0
    private var writesRead: UInt32 = 0

    package init(trace: RecordRing<Record>, outputLog: RecordRing<OutputWrite>, watermark: ReportWatermark) {
        self.trace = trace
        self.outputLog = outputLog
        self.watermark = watermark
    }

    /// Hands every whole step's dispatches and writes to `dispatch` and `write`, in order.
    /// `everything` hands out what is held too: for the last read, once the controller has stopped.
    package mutating func read(everything: Bool = false, dispatch: (Record) -> Void, write: (OutputWrite) -> Void) {
        let settled = watermark.settled
        trace.drain { heldRecords.append($0) }
        outputLog.drain { heldWrites.append($0) }
        let recordCount = everything ? heldRecords.count : Swift.min(heldRecords.count, Int(settled.trace &- recordsRead))
        let writeCount = everything ? heldWrites.count : Swift.min(heldWrites.count, Int(settled.outputs &- writesRead))
        var next = 0
        for written in heldWrites.prefix(writeCount) {
            while next < recordCount && heldRecords[next].time <= written.time {
                dispatch(heldRecords[next])
                next += 1
            }
            write(written)
        }
        while next < recordCount {
            dispatch(heldRecords[next])
            next += 1
        }
        heldRecords.removeFirst(recordCount)
        heldWrites.removeFirst(writeCount)
        recordsRead &+= UInt32(truncatingIfNeeded: recordCount)
        writesRead &+= UInt32(truncatingIfNeeded: writeCount)
    }
}
