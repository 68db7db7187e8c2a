import ControllerFSM
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
