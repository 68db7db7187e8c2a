import ControllerFSM
import Testing

@Suite("Timers")
struct TimerTests {
    func unlockedGate() throws -> StateMachine<GateState, GateEvent, GateContext> {
        var machine = StateMachine(table: try gateTable(), context: GateContext())
        machine.start()
        machine.send(.coin, at: at(0))
        return machine
    }

    @Test("the relock timer fires at its deadline, as an ordinary event")
    func firesAtDeadline() throws {
        let trace = TraceRing<GateState, GateEvent>(capacity: 16)
        var machine = StateMachine(table: try gateTable(), context: GateContext(), trace: trace)
        machine.start()
        machine.send(.coin, at: at(0))
        #expect(machine.nextDeadline == at(5))
        machine.advance(to: at(4.999_999_999))
        #expect(machine.state == .unlocked)
        machine.advance(to: at(7))
        #expect(machine.state == .locked)
        #expect(machine.nextDeadline == nil)
        var records: [DispatchRecord<GateState, GateEvent>] = []
        trace.drain { records.append($0) }
        let last = try #require(records.last)
        #expect(last.event == .timeout && last.time == at(5) && last.outcome == .transitioned)
    }

    @Test("a restarted timer's old expiry never arrives")
    func restartVoidsOldExpiry() throws {
        var machine = try unlockedGate()
        machine.send(.coin, at: at(4))
        machine.advance(to: at(8.9))
        #expect(machine.state == .unlocked, "the first deadline (5 s) was voided by the coin at 4 s")
        machine.advance(to: at(9))
        #expect(machine.state == .locked)
        #expect(machine.context.credit == 0)
    }

    @Test("leaving the state cancels its timer: no stale timeout arrives later")
    func cancelledTimerNeverFires() throws {
        let trace = TraceRing<GateState, GateEvent>(capacity: 16)
        var machine = StateMachine(table: try gateTable(), context: GateContext(), trace: trace)
        machine.start()
        machine.send(.coin, at: at(0))
        machine.send(.fault, at: at(1))
        machine.send(.repair, at: at(2))
        machine.advance(to: at(60))
        var events: [GateEvent] = []
        trace.drain { events.append($0.event) }
        #expect(!events.contains(.timeout))
        #expect(machine.statistics.ignored == 0)
    }

    @Test("an event after a deadline sees the expiry first")
    func dueTimersRunBeforeLaterEvents() throws {
        var machine = try unlockedGate()
        let outcome = machine.send(.push, at: at(5.5))
        #expect(outcome == .handledInternally, "the gate relocked at 5 s, so the push is a forced push")
        #expect(machine.context.forcedPushes == 1)
        #expect(machine.context.passages == 0)
    }

    @Test("five simulated seconds on a manual clock take microseconds")
    func manualClockIsFast() throws {
        let clock = ManualClock()
        let shared = ConcurrentMachine(
            StateMachine(table: try gateTable(), context: GateContext()), clock: clock)
        shared.start()
        let started = ContinuousClock.now
        shared.send(.coin)
        clock.advance(by: .seconds(5))
        shared.fireDueTimers()
        let elapsed = ContinuousClock.now - started
        #expect(shared.state == .locked)
        #expect(elapsed < .milliseconds(100))
    }

    @Test("timer slots are independent; several due at once fire in deadline order")
    func severalTimers() throws {
        enum S: Int, MachineSymbol { case only }
        enum E: Int, MachineSymbol { case arm, first, second, third }
        var definition = MachineDefinition<S, E, [E]>(initial: .only)
        definition.state(.only) { s in
            s.on(.arm) { _, fx in
                fx.startTimer(MachineTimer(2), after: .milliseconds(30), sending: .third)
                fx.startTimer(MachineTimer(0), after: .milliseconds(10), sending: .first)
                fx.startTimer(MachineTimer(1), after: .milliseconds(20), sending: .second)
            }
            s.on(.first) { log, fx in log.append(.first); fx.cancelTimer(MachineTimer(2)) }
            s.on(.second) { log, _ in log.append(.second) }
            s.on(.third) { log, _ in log.append(.third) }
        }
        var machine = StateMachine(table: try definition.compile(), context: [])
        machine.start()
        machine.send(.arm, at: .zero)
        machine.advance(to: at(1))
        #expect(machine.context == [.first, .second], "the first expiry cancelled the third before it was due")
    }
}
