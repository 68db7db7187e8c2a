import AllocationCounting
import ControllerFSM
import Dispatch
import Synchronization
import Testing

/// Every way a machine can be built allocates nothing per event: each observer chosen at compile
/// time, run-time hooks, and a shared machine whose senders contend (the inbox, the lock's
/// sleeping and waking). `ZeroAllocationTests` covers the common configurations over a million
/// events; this suite covers the rest over fewer.
@Suite("Zero allocation, every configuration", .enabled(if: isOptimizedBuild && canCountAllocations, "allocation counts are meaningful on an optimised build: swift test -c release --filter ZeroAllocation"))
struct ZeroAllocationConfigurationTests {
    static let warmUp = 10_000
    static let events = 200_000
    static let senders = 4

    typealias Stream = ZeroAllocationTests.EventStream

    /// Warms `machine` up, then counts the allocations of `events` more events on this thread.
    static func allocations<Observer>(
        _ machine: inout ObservedMachine<GateState, GateEvent, GateContext, Observer>,
        drain trace: TraceRing<GateState, GateEvent>? = nil
    ) -> UInt64 {
        machine.start()
        var stream = Stream()
        func run(_ count: Int) {
            for step in 0..<count {
                let (event, time) = stream.next()
                machine.send(event, at: time)
                if step & 255 == 0 { trace?.drain { _ in } }
            }
        }
        run(warmUp)
        malloc_counter_start()
        run(events)
        return malloc_counter_stop()
    }

    @Test("a bare machine (no observer) allocates nothing")
    func bare() throws {
        var machine = BareMachine(table: try gateTable(), context: GateContext())
        #expect(Self.allocations(&machine) == 0)
        #expect(machine.statistics.dispatched > Self.events)
    }

    @Test("a traced machine allocates nothing, and loses no record")
    func traced() throws {
        let trace = TraceRing<GateState, GateEvent>(capacity: 1024)
        var machine = TracedMachine(table: try gateTable(), context: GateContext(), trace: trace)
        #expect(Self.allocations(&machine, drain: trace) == 0)
        #expect(trace.lostCount == 0)
    }

    @Test("a machine with every hook set allocates nothing")
    func hooks() throws {
        final class Tally: @unchecked Sendable { var before = 0, after = 0, transitions = 0 }
        let tally = Tally()
        var machine = StateMachine(table: try gateTable(), context: GateContext())
        machine.hooks.beforeEvent = { _, _ in tally.before += 1 }
        machine.hooks.afterEvent = { _ in tally.after += 1 }
        machine.hooks.transitionObserver = { _, _, _ in tally.transitions += 1 }
        #expect(Self.allocations(&machine) == 0)
        #expect(tally.before == tally.after && tally.after == machine.statistics.dispatched)
        #expect(tally.transitions == machine.statistics.transitions)
    }

    @Test("a shared machine whose senders contend allocates nothing on any sender")
    func contendedSharedMachine() throws {
        typealias Shared = SharedMachine<GateState, GateEvent, GateContext, TraceObserver<GateState, GateEvent>, MutexLock, ManualClock>
        let trace = TraceRing<GateState, GateEvent>(capacity: 1 << 16)
        // A small inbox, so senders also wait for room (asleep on the lock) and make it themselves.
        let shared = Shared(
            TracedMachine(table: try gateTable(), context: GateContext(), trace: trace),
            clock: ManualClock(), inboxCapacity: 4)
        shared.start()
        let counted = Atomic<UInt64>(0)
        let queued = Atomic<Int>(0)
        let drained = Atomic<Int>(0)
        let sendersLeft = Atomic<Int>(Self.senders)
        let spins = Atomic<Int>(0)
        let helpers = DispatchGroup()
        // Contention whatever the scheduler does: a thread that keeps taking the machine for a
        // while, so senders find it held and queue, wait for room, or are refused.
        DispatchQueue.global().async(group: helpers) {
            while sendersLeft.load(ordering: .acquiring) > 0 {
                shared.withMachine { _ in
                    for _ in 0..<2_000 { spins.add(1, ordering: .relaxed) }
                }
                drained.add(trace.drain { _ in }, ordering: .relaxed)
            }
        }
        DispatchQueue.concurrentPerform(iterations: Self.senders) { sender in
            var stream = Stream(state: UInt64(sender + 1) &* 0x9E37_79B9_7F4A_7C15)
            func run(_ count: Int) -> Int {
                var queuedHere = 0
                for step in 0..<count {
                    let (event, _) = stream.next()
                    let outcome = step & 1 == 0 ? shared.send(event) : shared.trySend(event)
                    if case .queued = outcome { queuedHere += 1 }
                }
                return queuedHere
            }
            _ = run(Self.warmUp)
            malloc_counter_start()
            let queuedHere = run(Self.events)
            counted.add(malloc_counter_stop(), ordering: .relaxed)
            queued.add(queuedHere, ordering: .relaxed)
            sendersLeft.subtract(1, ordering: .releasing)
        }
        helpers.wait()
        drained.add(trace.drain { _ in }, ordering: .relaxed)
        #expect(counted.load(ordering: .relaxed) == 0)
        #expect(queued.load(ordering: .relaxed) > 0, "the senders never contended: the test checked only the uncontended path")
        let dispatched = shared.statistics.dispatched
        let chimes = shared.withMachine { $0.context.chimes }
        #expect(dispatched == Self.senders * (Self.warmUp + Self.events) - shared.refusedCount + chimes)
        #expect(drained.load(ordering: .relaxed) + trace.lostCount == dispatched)
    }
}
