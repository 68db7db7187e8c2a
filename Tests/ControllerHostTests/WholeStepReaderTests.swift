import ControllerTestSupport
import ControllerFSM
import Testing
@testable import ControllerHost
@testable import Turnstile

/// The daemon's reporter reads the trace and the output log on its own thread while the event
/// loop writes them: it must never tell a transition before the writes that step caused (a
/// reader that drained the trace just before the step's writes were logged did, one drain early).
@Suite("Whole-step reader")
struct WholeStepReaderTests {
    enum Told: Equatable { case dispatch(TurnstileEvent), write(OutputRole, Bool) }

    let trace = RecordRing<WholeStepReader<TurnstileApplication>.Record>(capacity: 64)
    let outputLog = RecordRing<OutputWrite>(capacity: 64)
    let watermark = ReportWatermark()

    func dispatch(_ event: TurnstileEvent, from: TurnstileState, to: TurnstileState, atSecond second: Int64) {
        trace.record(DispatchRecord(time: .zero + .seconds(second), from: from, event: event, to: to, outcome: .transitioned))
    }

    func write(_ role: OutputRole, _ value: Bool, atSecond second: Int64) {
        outputLog.record(OutputWrite(time: .zero + .seconds(second), role: role.name, value: value, completed: nil))
    }

    /// What the controller does when a call returns.
    func settle() { watermark.publish(trace: trace.recordedCount, outputs: outputLog.recordedCount) }

    func read(_ reader: inout WholeStepReader<TurnstileApplication>, everything: Bool = false) -> [Told] {
        var told: [Told] = []
        reader.read(everything: everything) { told.append(.dispatch($0.event)) } write: { told.append(.write(OutputRole($0.role), $0.value)) }
        return told
    }

    @Test("a step caught between its dispatch and its writes is told whole, at the next read")
    func aStepIsToldWhole() {
        var reader = WholeStepReader<TurnstileApplication>(trace: trace, outputLog: outputLog, watermark: watermark)
        dispatch(.coin, from: .locked, to: .unlocked, atSecond: 1)
        write(.lock, false, atSecond: 1)
        settle()
        // The next step has dispatched; its writes are not logged yet.
        dispatch(.push, from: .unlocked, to: .locked, atSecond: 2)
        #expect(read(&reader) == [.dispatch(.coin), .write(.lock, false)])
        write(.lock, true, atSecond: 2)
        #expect(read(&reader) == [], "nothing settled since")
        settle()
        #expect(read(&reader) == [.dispatch(.push), .write(.lock, true)])
    }

    @Test("a write with no dispatch (an alarm pulse ending) is told once its call returns")
    func aWriteOfItsOwn() {
        var reader = WholeStepReader<TurnstileApplication>(trace: trace, outputLog: outputLog, watermark: watermark)
        write(.alarm, false, atSecond: 3)
        #expect(read(&reader) == [])
        settle()
        #expect(read(&reader) == [.write(.alarm, false)])
    }

    @Test("steps at one instant keep their order: each dispatch before the writes at its time")
    func stepsAtOneInstant() {
        var reader = WholeStepReader<TurnstileApplication>(trace: trace, outputLog: outputLog, watermark: watermark)
        dispatch(.coin, from: .locked, to: .unlocked, atSecond: 5)
        write(.lock, false, atSecond: 5)
        dispatch(.push, from: .unlocked, to: .locked, atSecond: 5)
        write(.lock, true, atSecond: 5)
        settle()
        let told = read(&reader)
        #expect(told.count == 4)
        #expect(told.firstIndex(of: .dispatch(.coin))! < told.firstIndex(of: .write(.lock, false))!)
        #expect(told.firstIndex(of: .dispatch(.push))! < told.firstIndex(of: .write(.lock, true))!)
        #expect(told.firstIndex(of: .write(.lock, false))! < told.firstIndex(of: .write(.lock, true))!)
    }

    @Test("the last read tells everything held, settled or not")
    func theLastReadTellsEverything() {
        var reader = WholeStepReader<TurnstileApplication>(trace: trace, outputLog: outputLog, watermark: watermark)
        dispatch(.fault, from: .locked, to: .broken, atSecond: 7)
        write(.alarm, true, atSecond: 7)
        #expect(read(&reader) == [])
        #expect(read(&reader, everything: true) == [.dispatch(.fault), .write(.alarm, true)])
        #expect(read(&reader, everything: true) == [])
    }
}
