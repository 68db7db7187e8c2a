import ControllerFSM
import Testing

/// The observer is a compile-time choice; it must change what is observed, never what the
/// machine does.
@Suite("Observers")
struct ObserverTests {
    /// A fixed pseudo-random stream over every gate event, with times that sometimes repeat and
    /// sometimes pass the relock deadline.
    static func stream(seed: UInt64, count: Int) -> [(GateEvent, MachineInstant)] {
        var state = seed
        var time: Int64 = 0
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            time += Int64((state >> 33) % 3_000_000_000)
            return (GateEvent.allCases[Int((state >> 20) % UInt64(GateEvent.allCases.count))], MachineInstant(nanoseconds: time))
        }
    }

    static func records(_ trace: TraceRing<GateState, GateEvent>) -> [String] {
        var lines: [String] = []
        trace.drain { lines.append("\($0.time.nanoseconds) \($0.from.name) \($0.event.name) \($0.to.name) \($0.outcome)") }
        return lines
    }

    @Test("bare, traced and run-time-observed machines do the same; both traces hold the same records",
          arguments: [1, 2, 3, 4, 5] as [UInt64])
    func observersDoNotChangeBehaviour(seed: UInt64) throws {
        let table = try gateTable()
        let runtimeTrace = TraceRing<GateState, GateEvent>(capacity: 1024)
        let compiledTrace = TraceRing<GateState, GateEvent>(capacity: 1024)
        var observed = StateMachine(table: table, context: GateContext(), trace: runtimeTrace)
        var bare = BareMachine(table: table, context: GateContext())
        var traced = TracedMachine(table: table, context: GateContext(), trace: compiledTrace)
        var hooked = 0
        observed.hooks.afterEvent = { _ in hooked += 1 }
        observed.start()
        bare.start()
        traced.start()
        for (event, time) in Self.stream(seed: seed, count: 300) {
            let outcome = observed.send(event, at: time)
            #expect(bare.send(event, at: time) == outcome)
            #expect(traced.send(event, at: time) == outcome)
            #expect(bare.state == observed.state && traced.state == observed.state)
            #expect(bare.nextDeadline == observed.nextDeadline && traced.nextDeadline == observed.nextDeadline)
        }
        #expect(bare.statistics == observed.statistics)
        #expect(traced.statistics == observed.statistics)
        #expect(bare.context.credit == observed.context.credit && bare.context.passages == observed.context.passages)
        let records = Self.records(runtimeTrace)
        #expect(records.count == observed.statistics.dispatched)
        #expect(hooked == observed.statistics.dispatched)
        #expect(Self.records(compiledTrace) == records)
    }

    @Test("a shared machine takes any observer: with a trace observer every send is recorded")
    func sharedMachineWithTraceObserver() throws {
        let trace = TraceRing<GateState, GateEvent>(capacity: 64)
        let clock = ManualClock()
        let shared = SharedMachine<GateState, GateEvent, GateContext, TraceObserver<GateState, GateEvent>, MutexLock, ManualClock>(
            TracedMachine(table: try gateTable(), context: GateContext(), trace: trace), clock: clock)
        shared.start()
        #expect(shared.send(.coin) == .dispatched(.transitioned))
        clock.advance(by: .seconds(1))
        #expect(shared.send(.push) == .dispatched(.transitioned))
        #expect(Self.records(trace) == ["0 locked coin unlocked transitioned", "1000000000 unlocked push locked transitioned"])
    }
}
