@testable import ControllerFSM
import Dispatch
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
