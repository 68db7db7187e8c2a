import AllocationCounting
import ControllerFSM
import Testing

/// A nested machine allocates nothing on dispatch either: superstates exited and entered,
/// initial states chosen by guard, shallow and deep history remembered and restored, local and
/// external rows, a guard falling through to a superstate, a superstate's timer.
@Suite("Zero allocation, nested machines", .enabled(if: isOptimizedBuild && canCountAllocations, "allocation counts are meaningful on an optimised build: swift test -c release --package-path AllocationTests"))
struct NestedZeroAllocationTests {
    enum State: Int, MachineSymbol { case working, idle, busy, slow, fast, resume, deepResume, alarmed }
    enum Event: Int, MachineSymbol { case start, done, speed, alarm, clear, clearDeep, reset, poke, jump, restart, tick }
    enum Timer: Int, MachineTimer { case heartbeat }
    struct Context {
        var entries = 0
        var exits = 0
        var pokes = 0
        var ticks = 0
        var startBusy = false
    }

    static func table() throws -> TransitionTable<State, Event, Context> {
        var definition = MachineDefinition<State, Event, Context>(initial: .working)
        definition.state(.working) { s in
            s.initial(.busy, when: Guard("start busy") { $0.startBusy })
            s.initial(.idle)
            s.onEntry { c, fx in c.entries += 1; fx.startTimer(Timer.heartbeat, after: .milliseconds(700), sending: .tick) }
            s.onExit { c, fx in c.exits += 1; fx.cancelTimer(Timer.heartbeat) }
            s.on(.alarm, to: .alarmed)
            s.on(.reset, to: .working)
            s.on(.jump, to: .fast)
            s.on(.restart, to: .idle, kind: .external) { c, _ in c.startBusy.toggle() }
            s.on(.poke) { c, _ in c.pokes += 1 }
            s.on(.tick) { c, fx in c.ticks += 1; fx.startTimer(Timer.heartbeat, after: .milliseconds(700), sending: .tick) }
        }
        definition.state(.idle, in: .working) { s in
            s.onEntry { c, _ in c.entries += 1 }
            s.on(.start, to: .busy)
        }
        definition.state(.busy, in: .working) { s in
            s.initial(.slow)
            s.onEntry { c, _ in c.entries += 1 }
            s.onExit { c, _ in c.exits += 1 }
            s.on(.done, to: .idle)
            s.on(.poke, when: Guard("odd") { $0.pokes % 2 == 1 }) { c, fx in c.pokes += 1; fx.send(.speed) }
        }
        definition.state(.slow, in: .busy) { s in s.on(.speed, to: .fast) }
        definition.state(.fast, in: .busy) { s in
            s.onExit { c, _ in c.exits += 1 }
            s.on(.speed, to: .slow)
        }
        definition.history(.resume, of: .working, default: .idle)
        definition.history(.deepResume, of: .working, deep: true, default: .idle)
        definition.state(.alarmed) { s in
            s.on(.clear, to: .resume)
            s.on(.clearDeep, to: .deepResume)
        }
        return try definition.compile()
    }

    @Test("a million events through a nested machine with history allocate nothing")
    func nestedMachine() throws {
        let trace = TraceRing<State, Event>(capacity: 1024)
        var machine = StateMachine(table: try Self.table(), context: Context(), trace: trace)
        machine.start()
        var random: UInt64 = 0x2545_F491_4F6C_DD1D
        var time: Int64 = 0
        var visited = Set<State>()
        func run(_ count: Int, noting: Bool) {
            for step in 0..<count {
                random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let roll = Int(truncatingIfNeeded: random >> 33)
                time += Int64(roll % 300) * 1_000_000
                let event = Event(rawValue: roll % (Event.allCases.count - 1))!
                machine.send(event, at: MachineInstant(nanoseconds: time))
                if step & 255 == 0 { trace.drain { _ in } }
                if noting { visited.insert(machine.state) }
            }
        }
        run(10_000, noting: true)
        malloc_counter_start()
        run(1_000_000, noting: false)
        let allocations = malloc_counter_stop()
        #expect(allocations == 0)
        #expect(visited == [.idle, .slow, .fast, .alarmed], "every innermost state was visited: \(visited)")
        let stats = machine.statistics
        #expect(stats.transitions > 300_000 && stats.internalTransitions > 50_000, "\(stats)")
        #expect(machine.context.ticks > 1_000, "the superstate's timer expired and restarted")
        #expect(machine.context.entries > 300_000 && machine.context.exits > 200_000)
    }
}
