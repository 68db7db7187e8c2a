import AllocationCounting
import ControllerFSM
import Testing

/// Dispatch must not allocate once warmed up, on an optimised build as users ship it:
/// `swift test -c release --package-path AllocationTests` (scripts/test.sh runs it). Unoptimised code
/// allocates reabstraction thunks around closure calls, so in a debug build the suite is skipped.
@Suite("Zero allocation", .enabled(if: isOptimizedBuild && canCountAllocations, "allocation counts are meaningful on an optimised build: swift test -c release --package-path AllocationTests"))
struct ZeroAllocationTests {
    static let events = 1_000_000

    /// A fixed pseudo-random event stream covering guards, internal transitions, entry/exit work,
    /// the relock timer (time moves 0–2 s per event, so it often expires) and action sends.
    struct EventStream {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var time: Int64 = 0

        mutating func next() -> (GateEvent, MachineInstant) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let roll = Int(truncatingIfNeeded: state >> 33)
            time += Int64(roll % 2_000) * 1_000_000
            let event: GateEvent = switch roll % 16 {
            case 0..<6: .coin
            case 6..<13: .push
            case 13: .fault
            default: .repair
            }
            return (event, MachineInstant(nanoseconds: time))
        }
    }

    @Test("a million events through the bare machine allocate nothing (timers, queue, trace, guards)")
    func bareMachine() throws {
        let trace = TraceRing<GateState, GateEvent>(capacity: 1024)
        var machine = StateMachine(table: try gateTable(), context: GateContext(), trace: trace)
        machine.start()
        var stream = EventStream()
        var drained = 0
        for step in 0..<10_000 {
            let (event, time) = stream.next()
            machine.send(event, at: time)
            if step & 255 == 0 { drained += trace.drain { _ in } }
        }

        malloc_counter_start()
        for step in 0..<Self.events {
            let (event, time) = stream.next()
            machine.send(event, at: time)
            if step & 255 == 0 { drained += trace.drain { _ in } }
        }
        let allocations = malloc_counter_stop()

        #expect(allocations == 0)
        let stats = machine.statistics
        #expect(stats.dispatched > Self.events, "timer expiries and action sends come on top")
        #expect(stats.transitions > 100_000 && stats.internalTransitions > 100_000 && stats.ignored > 10_000)
        #expect(machine.context.chimes > 10_000, "events sent by actions went through the queue")
        #expect(trace.lostCount == 0)
        #expect(drained > 0)
    }

    /// `init` reserves everything: not even the first events after it may allocate (a buffer
    /// two fields shared, copied at its first write, passed every warmed-up test here and was
    /// caught only by the daemon's loop check).
    @Test("from the first event after start, nothing allocates: init reserved it all")
    func firstEventsAfterStart() throws {
        // A throwaway machine first, so that what a type makes once per process (its metadata)
        // is made outside the count; the counted machine is a new one.
        var warm = StateMachine(table: try gateTable(), context: GateContext())
        warm.start()
        var stream = EventStream()
        for _ in 0..<1_000 {
            let (event, time) = stream.next()
            warm.send(event, at: time)
        }
        var machine = StateMachine(table: try gateTable(), context: GateContext())
        machine.start()
        malloc_counter_start()
        for _ in 0..<1_000 {
            let (event, time) = stream.next()
            machine.send(event, at: time)
        }
        let allocations = malloc_counter_stop()
        #expect(allocations == 0)
        #expect(machine.context.chimes > 0, "events sent by actions went through the queue")
    }

    @Test("a million events through the shared machine (lock, inbox, clock) allocate nothing")
    func sharedMachine() throws {
        let clock = ManualClock()
        let trace = TraceRing<GateState, GateEvent>(capacity: 1024)
        let shared = ConcurrentMachine(
            StateMachine(table: try gateTable(), context: GateContext(), trace: trace), clock: clock)
        shared.start()
        var stream = EventStream()
        func run(_ count: Int) {
            for step in 0..<count {
                let (event, time) = stream.next()
                clock.set(to: time)
                if let deadline = shared.nextDeadline, deadline <= time { shared.fireDueTimers() }
                if step & 1 == 0 { shared.send(event) } else { shared.trySend(event) }
                if step & 255 == 0 { trace.drain { _ in } }
            }
        }
        run(10_000)

        malloc_counter_start()
        run(Self.events)
        let allocations = malloc_counter_stop()

        #expect(allocations == 0)
        #expect(shared.refusedCount == 0)
        #expect(trace.lostCount == 0)
    }

    @Test("an event loop's turns through the pollable inbox and a machine with its wake-up allocate nothing (post, take, clear, ring)")
    func pollableInboxAndWakeUp() throws {
        let clock = ManualClock()
        let inbox = try PollableInbox<GateEvent>(capacity: 64)
        let shared = ConcurrentMachine(
            StateMachine(table: try gateTable(), context: GateContext()), clock: clock, wakeUp: inbox.wakeUp)
        shared.start()
        var stream = EventStream()
        var taken = 0
        func run(_ count: Int) {
            for step in 0..<count {
                let (event, time) = stream.next()
                clock.set(to: time)
                if step & 3 == 0 { inbox.post(event) } else { shared.send(event) }
                // Half the turns as a loop about to sleep, so that sends ring the descriptor.
                if step & 1 == 0 { inbox.wakeUp.prepareToSleep() } else { inbox.clearWakeUps() }
                while let posted = inbox.take() {
                    shared.send(posted)
                    taken += 1
                }
                if let deadline = shared.nextDeadline, deadline <= time { shared.fireDueTimers() }
            }
        }
        run(10_000)

        malloc_counter_start()
        run(Self.events / 10)
        let allocations = malloc_counter_stop()

        #expect(allocations == 0)
        #expect(inbox.refusedCount == 0)
        #expect(taken == (10_000 + Self.events / 10) / 4)
    }
}
