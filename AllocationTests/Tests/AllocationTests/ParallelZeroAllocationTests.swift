import AllocationCounting
import ControllerFSM
import Testing

/// The configuration path allocates nothing either: two doors as parallel regions, a row of the
/// parallel state answered once from both, conflicting rows, rows to several states, a deep
/// history of the parallel state (every region remembered), guarded eventless rows, final states
/// and the parallel state's done event, a timer.
@Suite("Zero allocation, parallel regions", .enabled(if: isOptimizedBuild && canCountAllocations, "allocation counts are meaningful on an optimised build: swift test -c release --package-path AllocationTests"))
struct ParallelZeroAllocationTests {
    enum State: Int, MachineSymbol {
        case doors, outer, outerClosed, outerOpen, outerDone, inner, innerClosed, innerOpen, innerDone, alarm, back, lobby
    }
    enum Event: Int, MachineSymbol { case toggleOuter, toggleInner, both, fire, resume, finish, leave, tick, allDone }
    enum Timer: Int, MachineTimer { case heartbeat }
    struct Context {
        var entries = 0
        var toggles = 0
        var ticks = 0
        var done = 0
    }

    static func table() throws -> TransitionTable<State, Event, Context> {
        var definition = MachineDefinition<State, Event, Context>(initial: .doors)
        definition.parallel(.doors, whenDone: .allDone) { s in
            s.onEntry { c, fx in c.entries += 1; fx.startTimer(Timer.heartbeat, after: .milliseconds(700), sending: .tick) }
            s.onExit { _, fx in fx.cancelTimer(Timer.heartbeat) }
            s.on(.fire, to: .alarm)
            s.on(.tick) { c, fx in c.ticks += 1; fx.startTimer(Timer.heartbeat, after: .milliseconds(700), sending: .tick) }
            s.on(.allDone, to: .lobby) { c, _ in c.done += 1 }
        }
        definition.state(.outer, in: .doors) { s in s.initial(.outerClosed) { c, _ in c.entries += 1 } }
        definition.state(.outerClosed, in: .outer) { s in
            s.on(.toggleOuter, to: .outerOpen) { c, _ in c.toggles += 1 }
            s.on(.finish, to: .outerDone)
        }
        definition.state(.outerOpen, in: .outer) { s in
            s.on(.toggleOuter, to: .outerClosed)
            // Leaves both regions, and conflicts with the inner region's own `leave`.
            s.on(.leave, to: .alarm)
            s.always(when: Guard("many toggles") { $0.toggles % 7 == 6 }, to: .outerClosed) { c, _ in c.toggles += 1 }
        }
        definition.final(.outerDone, in: .outer)
        definition.state(.inner, in: .doors) { s in s.initial(.innerClosed) }
        definition.state(.innerClosed, in: .inner) { s in
            s.on(.toggleInner, to: .innerOpen) { c, _ in c.toggles += 1 }
            s.on(.leave, to: .innerOpen)
            s.on(.finish, to: .innerDone)
        }
        definition.state(.innerOpen, in: .inner) { s in s.on(.toggleInner, to: .innerClosed) }
        definition.final(.innerDone, in: .inner)
        definition.history(.back, of: .doors, deep: true, default: [.outerOpen, .innerOpen])
        definition.state(.alarm) { s in
            s.on(.resume, to: .back)
            s.on(.both, to: [.outerOpen, .innerOpen])
        }
        definition.state(.lobby) { s in s.on(.resume, to: .doors) }
        return try definition.compile()
    }

    @Test("a million events through parallel regions with history allocate nothing")
    func parallelMachine() throws {
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
                // `finish` rarely, so the doors spend time open and closed.
                var event = Event(rawValue: roll % (Event.allCases.count - 2))!
                if event == .finish && roll % 5 != 0 { event = .toggleInner }
                machine.send(event, at: MachineInstant(nanoseconds: time))
                if step & 255 == 0 { trace.drain { _ in } }
                if noting { for state in machine.activeStates { visited.insert(state) } }
            }
        }
        run(10_000, noting: true)
        malloc_counter_start()
        run(1_000_000, noting: false)
        let allocations = malloc_counter_stop()
        #expect(allocations == 0)
        #expect(visited.isSuperset(of: [.outerClosed, .outerOpen, .innerClosed, .innerOpen, .outerDone, .innerDone, .alarm, .lobby]), "every innermost state was visited: \(visited)")
        let stats = machine.statistics
        #expect(stats.transitions > 300_000 && stats.eventlessSteps > 1_000, "\(stats)")
        #expect(machine.context.ticks > 1_000 && machine.context.done > 1_000, "timer \(machine.context.ticks), done \(machine.context.done)")
    }
}
