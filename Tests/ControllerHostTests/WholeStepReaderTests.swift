import Foundation
import Synchronization
import Dispatch
import ControllerTestSupport
import ControllerFSM
import Testing
@testable import ControllerHost
@testable import Turnstile
import TurnstileTestSupport

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
        outputLog.record(OutputWrite(time: .zero + .seconds(second), role: RoleName(role.rawValue), value: value, completed: nil))
    }

    /// What the controller does when a call returns.
    func settle() { watermark.publish(trace: trace.recordedCount, outputs: outputLog.recordedCount) }

    func read(_ reader: inout WholeStepReader<TurnstileApplication>, everything: Bool = false) -> [Told] {
        var told: [Told] = []
        reader.read(everything: everything) { told.append(.dispatch($0.event)) } write: { told.append(.write(OutputRole(rawValue: $0.role.rawValue)!, $0.value)) }
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

    /// Steps the controller of the stress test below takes: a few hundred milliseconds plain,
    /// seconds under TSan or qemu.
    static let stressSteps = 50_000

    /// What `WholeStepReader` relies on: a reader that sees the watermark's word sees the
    /// records it counts in the rings, so a drain after reading it gets at least that many. The
    /// word is stored releasing after the rings' own releasing head stores, and read acquiring;
    /// stored relaxed, a reader on arm64 could see the count before the records (and the
    /// reader would hold back nothing: it would tell a transition before its writes).
    @Test("stress: a drain after reading the watermark gets every record it counts, in order, while the controller's thread writes and publishes")
    func stressWatermarkCountsWhatIsInTheRings() {
        let trace = RecordRing<WholeStepReader<TurnstileApplication>.Record>(capacity: 256)
        let outputLog = RecordRing<OutputWrite>(capacity: 256)
        let watermark = ReportWatermark()
        struct Seen: Sendable {
            var records = 0, writes = 0
            var shortfalls = 0, outOfOrder = 0
            var lastRecord = Int64.min, lastWrite = Int64.min
        }
        let result = Guarded(Seen())
        let running = Atomic<Bool>(false)
        let written = Atomic<Bool>(false)
        let reader = DispatchGroup()
        reader.enter()
        // A thread of its own, running before the first step: a block on Dispatch's pool may
        // start after the last.
        Thread {
            running.store(true, ordering: .relaxed)
            var seen = Seen()
            var last = false
            while !last {
                last = written.load(ordering: .acquiring)
                let settled = watermark.settled
                trace.drain { record in
                    if record.time.nanoseconds <= seen.lastRecord { seen.outOfOrder += 1 }
                    seen.lastRecord = record.time.nanoseconds
                    seen.records += 1
                }
                outputLog.drain { write in
                    if write.time.nanoseconds <= seen.lastWrite { seen.outOfOrder += 1 }
                    seen.lastWrite = write.time.nanoseconds
                    seen.writes += 1
                }
                // Counted by the word, so in the rings: drained by now (modulo 2^32, as counted).
                if Int32(bitPattern: UInt32(truncatingIfNeeded: seen.records) &- settled.trace) < 0
                    || Int32(bitPattern: UInt32(truncatingIfNeeded: seen.writes) &- settled.outputs) < 0 {
                    seen.shortfalls += 1
                }
            }
            result.withLock { $0 = seen }
            reader.leave()
        }.start()
        while !running.load(ordering: .relaxed) { sched_yield() }
        for step in 0..<Self.stressSteps {
            let time = MachineInstant(nanoseconds: Int64(step))
            trace.record(DispatchRecord(time: time, from: .locked, event: .coin, to: .unlocked, outcome: .transitioned))
            outputLog.record(OutputWrite(time: time, role: "lock", value: step % 2 == 0, completed: nil))
            watermark.publish(trace: trace.recordedCount, outputs: outputLog.recordedCount)
        }
        written.store(true, ordering: .releasing)
        reader.wait()
        let seen = result.withLock { $0 }
        #expect(seen.shortfalls == 0, "a drain after reading the watermark missed records it counted")
        #expect(seen.outOfOrder == 0)
        #expect(seen.records + trace.lostCount == Self.stressSteps)
        #expect(seen.writes + outputLog.lostCount == Self.stressSteps)
    }
}
