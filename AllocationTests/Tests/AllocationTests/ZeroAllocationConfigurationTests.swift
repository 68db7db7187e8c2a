import AllocationCounting
import ControllerFSM
import Dispatch
import Foundation
import Synchronization
import Testing

/// Every way a machine can be built allocates nothing per event: each observer chosen at compile
/// time, run-time hooks, and a shared machine whose senders contend (the inbox, the lock's
/// sleeping and waking). `ZeroAllocationTests` covers the common configurations over a million
/// events; this suite covers the rest over fewer.
@Suite("Zero allocation, every configuration", .enabled(if: isOptimizedBuild && canCountAllocations, "allocation counts are meaningful on an optimised build: swift test -c release --package-path AllocationTests"))
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
        let inboxCapacity = 4
        let trace = TraceRing<GateState, GateEvent>(capacity: 1 << 16)
        // A small inbox, so senders also wait for room (asleep on the lock) and are refused.
        let shared = Shared(
            TracedMachine(table: try gateTable(), context: GateContext(), trace: trace),
            clock: ManualClock(), inboxCapacity: inboxCapacity)
        shared.start()
        let counted = Atomic<UInt64>(0)
        let queued = Atomic<Int>(0)
        let sendersCounting = Atomic<Int>(0)
        let holding = Atomic<Bool>(false)
        let holder = DispatchGroup()
        // Contention whatever the scheduler does: once every sender counts its allocations, a
        // thread takes the machine and keeps it until the inbox has filled, so senders queue,
        // sleep waiting for room, or are refused, inside the measurement.
        DispatchQueue.global().async(group: holder) {
            while sendersCounting.load(ordering: .acquiring) < Self.senders {}
            shared.withMachine { _ in
                holding.store(true, ordering: .releasing)
                let giveUp = MonotonicClock().now() + .seconds(2)
                while queued.load(ordering: .acquiring) < inboxCapacity && MonotonicClock().now() < giveUp {}
            }
        }
        // Threads of their own, all running at once: a pool narrower than the senders would
        // leave the first ones spinning for the others for ever.
        let sendersDone = DispatchGroup()
        for sender in 0..<Self.senders {
            sendersDone.enter()
            Thread {
                defer { sendersDone.leave() }
                var stream = Stream(state: UInt64(sender + 1) &* 0x9E37_79B9_7F4A_7C15)
                func run(_ count: Int) {
                    for step in 0..<count {
                        let (event, _) = stream.next()
                        let outcome = step & 1 == 0 ? shared.send(event) : shared.trySend(event)
                        if case .queued = outcome { queued.add(1, ordering: .releasing) }
                    }
                }
                run(Self.warmUp)
                queued.store(0, ordering: .releasing)
                malloc_counter_start()
                sendersCounting.add(1, ordering: .releasing)
                while !holding.load(ordering: .acquiring) {}
                run(Self.events)
                counted.add(malloc_counter_stop(), ordering: .relaxed)
            }.start()
        }
        sendersDone.wait()
        holder.wait()
        #expect(counted.load(ordering: .relaxed) == 0)
        #expect(queued.load(ordering: .relaxed) >= inboxCapacity, "the senders never filled the inbox: the test checked only the uncontended path")
        let dispatched = shared.statistics.dispatched
        let chimes = shared.withMachine { $0.context.chimes }
        #expect(dispatched == Self.senders * (Self.warmUp + Self.events) - shared.refusedCount + chimes)
        var drained = 0
        drained += trace.drain { _ in }
        #expect(drained + trace.lostCount == dispatched)
    }
}
