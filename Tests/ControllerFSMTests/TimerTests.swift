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
        #expect(elapsed < Self.realTimeForFiveSimulatedSeconds, "\(elapsed)")
    }

    /// The real time five simulated seconds may take. A clock that waited in real time would
    /// take 5 s; what the test does (a send, an advance, a timer fired) takes microseconds, so
    /// half of the simulated time leaves 2.5 s for a thread descheduled on a loaded machine
    /// under a sanitizer (it was 100 ms, which one such pause could take up).
    static let realTimeForFiveSimulatedSeconds: Duration = .milliseconds(2500)

    @Test("timer slots are independent; several due at once fire in deadline order")
    func severalTimers() throws {
        enum S: Int, MachineSymbol { case only }
        enum E: Int, MachineSymbol { case arm, first, second, third }
        enum T: Int, MachineTimer { case first, second, third }
        var definition = MachineDefinition<S, E, [E]>(initial: .only)
        definition.state(.only) { s in
            s.on(.arm) { _, fx in
                fx.startTimer(T.third, after: .milliseconds(30), sending: .third)
                fx.startTimer(T.first, after: .milliseconds(10), sending: .first)
                fx.startTimer(T.second, after: .milliseconds(20), sending: .second)
            }
            s.on(.first) { log, fx in log.append(.first); fx.cancelTimer(T.third) }
            s.on(.second) { log, _ in log.append(.second) }
            s.on(.third) { log, _ in log.append(.third) }
        }
        var machine = StateMachine(table: try definition.compile(), context: [])
        machine.start()
        machine.send(.arm, at: .zero)
        machine.advance(to: at(1))
        #expect(machine.context == [.first, .second], "the first expiry cancelled the third before it was due")
    }

    enum Many: Int, MachineSymbol { case arm, expired }
    /// As many timers as a machine has slots, and one case more.
    enum EightTimers: Int, MachineTimer { case t0, t1, t2, t3, t4, t5, t6, t7 }
    enum NineTimers: Int, MachineTimer { case t0, t1, t2, t3, t4, t5, t6, t7, t8 }

    static func machine<T: MachineTimer>(starting timers: [T]) throws -> StateMachine<S1, Many, [Int64]> {
        var definition = MachineDefinition<S1, Many, [Int64]>(initial: .only)
        definition.state(.only) { s in
            s.on(.arm) { _, fx in
                for timer in timers { fx.startTimer(timer, after: .milliseconds(Int64(timer.rawValue + 1)), sending: .expired) }
            }
            s.on(.expired) { log, fx in log.append(fx.now.nanoseconds) }
        }
        var machine = StateMachine(table: try definition.compile(), context: [])
        machine.start()
        return machine
    }
    enum S1: Int, MachineSymbol { case only }

    @Test("an enum with as many timers as there are slots uses every slot, each timer its own")
    func everySlot() throws {
        #expect(EightTimers.slotCount == EightTimers.allCases.count)
        var machine = try Self.machine(starting: EightTimers.allCases)
        machine.send(.arm, at: .zero)
        #expect(EightTimers.allCases.allSatisfy { machine.isRunning($0) })
        machine.advance(to: at(1))
        #expect(machine.context == (1...8).map { Int64($0) * 1_000_000 })
    }

    @Test("a timer enum with more cases than slots traps at its first use, naming the case")
    func tooManyTimers() async throws {
        // Cases within the slots still work; the one past them is refused.
        var machine = try Self.machine(starting: [NineTimers.t7])
        machine.send(.arm, at: .zero)
        #expect(machine.isRunning(NineTimers.t7))
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = try TimerTests.machine(starting: [NineTimers.t8])
            machine.send(.arm, at: .zero)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("timer .t8 has raw value 8, but a machine's timer slots are 0 to 7"), "\(message)")
    }

    /// Raw values chosen by hand: within the slots they are the slots; outside them, at either
    /// end, they are refused by name rather than indexing past the slots.
    enum HandNumberedTimers: Int, MachineTimer {
        case inSlot = 5
        case negative = -1
        case beyond = 100
    }

    @Test("a timer whose raw value is not a slot (negative, or past the last) traps naming it; one within the slots works")
    func rawValuesOutsideTheSlots() async throws {
        var machine = try Self.machine(starting: [HandNumberedTimers.inSlot])
        machine.send(.arm, at: .zero)
        #expect(machine.isRunning(HandNumberedTimers.inSlot))
        let negative = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = try TimerTests.machine(starting: [HandNumberedTimers.negative])
            machine.send(.arm, at: .zero)
        }
        let negativeMessage = String(decoding: negative?.standardErrorContent ?? [], as: UTF8.self)
        #expect(negativeMessage.contains("timer .negative has raw value -1, but a machine's timer slots are 0 to 7"), "\(negativeMessage)")
        let beyond = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = try TimerTests.machine(starting: [HandNumberedTimers.beyond])
            machine.send(.arm, at: .zero)
        }
        let beyondMessage = String(decoding: beyond?.standardErrorContent ?? [], as: UTF8.self)
        #expect(beyondMessage.contains("timer .beyond has raw value 100"), "\(beyondMessage)")
    }
}
