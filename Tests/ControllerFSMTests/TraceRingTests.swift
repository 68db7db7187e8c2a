@testable import ControllerFSM
import ControllerTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite("Trace")
struct TraceRingTests {
    @Test("every dispatch is recorded with time, from, event, to and outcome")
    func recordsDispatches() throws {
        let trace = TraceRing<GateState, GateEvent>(capacity: 16)
        var machine = StateMachine(table: try gateTable(), context: GateContext(), trace: trace)
        machine.start()
        machine.send(.coin, at: at(1))
        machine.send(.repair, at: at(2))
        machine.send(.push, at: at(3))
        var lines: [String] = []
        trace.drain { lines.append("\($0.time.seconds) \($0.from.name) \($0.event.name) \($0.to.name) \($0.outcome)") }
        #expect(lines == ["1.0 locked coin unlocked transitioned", "2.0 unlocked repair unlocked ignored", "3.0 unlocked push locked transitioned"])
        #expect(trace.pendingCount == 0)
        #expect(trace.lostCount == 0)
    }

    @Test("records that do not fit are counted, never silently dropped")
    func lossesAreCounted() throws {
        let trace = TraceRing<GateState, GateEvent>(capacity: 4)
        var machine = StateMachine(table: try gateTable(), context: GateContext(), trace: trace)
        machine.start()
        for step in 0..<10 { machine.send(.push, at: at(Double(step))) }
        #expect(trace.lostCount == 6)
        var times: [Double] = []
        #expect(trace.drain { times.append($0.time.seconds) } == 4)
        #expect(times == [0, 1, 2, 3], "the oldest records are kept")
        machine.send(.push, at: at(20))
        #expect(trace.drain { _ in } == 1)
    }

    @Test("another thread drains while dispatch runs; drained + lost = dispatched, in order")
    func concurrentDrain() throws {
        let trace = TraceRing<GateState, GateEvent>(capacity: 64)
        let total = 200_000
        let done = Atomic<Bool>(false)
        let consumer = DispatchGroup()
        final class Tally: @unchecked Sendable { var count = 0; var ordered = true; var last = Int64.min }
        let tally = Tally()
        DispatchQueue.global().async(group: consumer) {
            func take(_ record: DispatchRecord<GateState, GateEvent>) {
                if record.time.nanoseconds < tally.last { tally.ordered = false }
                tally.last = record.time.nanoseconds
                tally.count += 1
            }
            while !done.load(ordering: .acquiring) { trace.drain(take) }
            trace.drain(take)
        }
        var machine = StateMachine(table: try gateTable(), context: GateContext(), trace: trace)
        machine.start()
        for step in 0..<total { machine.send(.push, at: MachineInstant(nanoseconds: Int64(step))) }
        done.store(true, ordering: .releasing)
        consumer.wait()
        #expect(tally.count + trace.lostCount == total)
        #expect(tally.ordered)
        #expect(tally.count > 0)
    }
}

/// The ring's own bookkeeping, apart from a machine.
@Suite("Record ring")
struct RecordRingTests {
    @Test("positions that run past Int.max wrap: nothing is lost, reordered or taken for full")
    func positionsWrap() {
        let ring = RecordRing<Int>(capacity: 8, firstPosition: Int.max - 20)
        var next = 0
        var drained: [Int] = []
        // 10 laps of the ring across the wrap, the writer running ahead of the reader by 5.
        for _ in 0..<80 {
            ring.record(next)
            next += 1
            if ring.pendingCount > 5 { ring.drain { drained.append($0) } }
        }
        ring.drain { drained.append($0) }
        #expect(drained == Array(0..<80))
        #expect(ring.lostCount == 0)
        #expect(ring.recordedCount == (Int.max - 20) &+ 80)
    }

    @Test("a full ring counts what it cannot hold, across the wrap too")
    func fullAcrossTheWrap() {
        let ring = RecordRing<Int>(capacity: 4, firstPosition: Int.max - 1)
        for value in 0..<6 { ring.record(value) }
        #expect(ring.lostCount == 2)
        var drained: [Int] = []
        ring.drain { drained.append($0) }
        #expect(drained == [0, 1, 2, 3])
    }

    /// Records the writer of the stress test below writes at most (or as many as fit in
    /// `StressDeadline.budget`): tens of milliseconds in a plain run.
    static let stressRecords = 50_000

    /// Two drainers that take turns (`drain` lets one in at a time) and share what they saw in
    /// plain fields, touched only inside `drain`: the ring's `draining` flag orders them.
    final class SharedTally: @unchecked Sendable {
        var tally = StressTally(producers: 1)
    }

    /// The ring's orderings as arm64 needs them: a slot's payload before the head that
    /// publishes it (torn or stale records), the reader's move out of a slot before the tail
    /// that frees it (a record overwritten while read), one drainer's tail before the next
    /// drainer's (records taken twice). A small ring keeps the writer at the drainers' heels,
    /// so every slot is reused as soon as it is freed: the writer tries each even record again
    /// until it fits, and gives each odd one a single try, so losses happen and are checked.
    @Test("stress: one writer, two drainers taking turns: every record whole, in order, none twice; losses counted exactly")
    func stressOneWriterTwoDrainers() {
        let ring = RecordRing<StressPayload>(capacity: 8, firstPosition: Int.max - 1_000)
        let shared = SharedTally()
        let running = Atomic<Int>(0)
        let written = Atomic<Bool>(false)
        let drainers = DispatchGroup()
        for _ in 0..<2 {
            Thread {
                drainers.enter()
                running.add(1, ordering: .relaxed)
                while !written.load(ordering: .acquiring) {
                    if ring.drain({ shared.tally.take($0) }) == 0 { sched_yield() }
                }
                ring.drain { shared.tally.take($0) }
                drainers.leave()
            }.start()
        }
        let giveUp = ContinuousClock.now + TestTimeouts.handOver
        while running.load(ordering: .relaxed) < 2 && ContinuousClock.now < giveUp { sched_yield() }
        var failedTries = 0
        var dropped = 0
        var records = 0
        let deadline = StressDeadline()
        for sequence in 0..<Self.stressRecords where !deadline.hasPassed {
            records += 1
            while true {
                let lostBefore = ring.lostCount
                ring.record(StressPayload(producer: 0, sequence: sequence))
                if ring.lostCount == lostBefore { break }
                failedTries += 1
                if sequence % 2 == 1 {
                    dropped += 1
                    break
                }
                if ContinuousClock.now >= giveUp { break }
                sched_yield()
            }
        }
        written.store(true, ordering: .releasing)
        #expect(drainers.wait(timeout: TestTimeouts.handOver.fromNow) == .success)
        ring.drain { shared.tally.take($0) }
        let tally = shared.tally
        #expect(tally.torn == 0, "records read before they were whole, or while overwritten")
        #expect(tally.outOfOrder == 0, "records taken twice or out of order")
        #expect(ring.lostCount == failedTries, "every record that did not fit was counted lost")
        // Dropped: the sequence numbers skipped, and those after the last record drained.
        let trailing = records - Int(tally.next[0])
        #expect(tally.skipped + trailing == dropped, "every record written was drained")
        #expect(tally.taken == records - dropped)
        #expect(records > 0)
        #expect(ring.pendingCount == 0)
    }

    @Test("records never drained are released with the ring")
    func pendingRecordsAreReleased() {
        final class Counter { var released = 0 }
        final class Tracked {
            let counter: Counter
            init(_ counter: Counter) { self.counter = counter }
            deinit { counter.released += 1 }
        }
        let released = Counter()
        do {
            let ring = RecordRing<Tracked>(capacity: 4)
            for _ in 0..<3 { ring.record(Tracked(released)) }
            ring.drain { _ in }
            ring.record(Tracked(released))
            ring.record(Tracked(released))
            #expect(released.released == 3)
        }
        #expect(released.released == 5)
    }
}
