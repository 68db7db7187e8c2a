import ControllerFSM
import Testing

@Suite("Dispatch")
struct DispatchTests {
    func startedGate(journal: Bool = false) throws -> StateMachine<GateState, GateEvent, GateContext> {
        var context = GateContext()
        if journal { context.journal = [] }
        var machine = StateMachine(table: try gateTable(), context: context)
        machine.start()
        return machine
    }

    @Test("a scripted sequence visits every state and keeps the counts")
    func scriptedSequence() throws {
        var machine = try startedGate(journal: true)
        let script: [(GateEvent, DispatchOutcome, GateState)] = [
            (.push, .handledInternally, .locked),
            (.timeout, .ignored, .locked),
            (.coin, .transitioned, .unlocked),
            (.coin, .handledInternally, .unlocked),
            (.push, .handledInternally, .unlocked),
            (.push, .transitioned, .locked),
            (.coin, .transitioned, .unlocked),
            (.fault, .transitioned, .broken),
            (.coin, .handledInternally, .broken),
            (.push, .ignored, .broken),
            (.repair, .transitioned, .locked),
        ]
        for (step, (event, outcome, state)) in script.enumerated() {
            let result = machine.send(event, at: at(Double(step) * 0.1))
            #expect(result == outcome, "step \(step): \(event)")
            #expect(machine.state == state, "step \(step): \(event)")
        }
        let c = machine.context
        #expect(c.coins == 4)
        #expect(c.passages == 2)
        #expect(c.forcedPushes == 1)
        #expect(c.credit == 0)
        #expect(c.chimes == 1)
        #expect(!c.alarm && !c.relayReleased)
        #expect(c.journal == [
            "enter locked",
            "exit locked", "enter unlocked", "exit unlocked", "enter locked",
            "exit locked", "enter unlocked", "exit unlocked", "enter broken",
            "exit broken", "enter locked",
        ])
        let stats = machine.statistics
        #expect(stats.ignored == 2)
        #expect(stats.transitions == 5)
        #expect(stats.dispatched == script.count + 1, "the chime sent by an action is dispatched too")
    }

    @Test("guards are tried in the order written; the first that holds is taken")
    func guardOrder() throws {
        var machine = try startedGate()
        machine.send(.coin, at: at(0))
        machine.send(.coin, at: at(0.1))
        machine.send(.coin, at: at(0.2))
        #expect(machine.context.credit == 3)
        #expect(machine.send(.push, at: at(0.3)) == .handledInternally)
        #expect(machine.send(.push, at: at(0.4)) == .handledInternally)
        #expect(machine.context.credit == 1)
        #expect(machine.send(.push, at: at(0.5)) == .transitioned)
        #expect(machine.state == .locked)
    }

    @Test("an event sent by an action runs after the current one completes, not inside it")
    func actionSendIsQueued() throws {
        enum S: Int, MachineSymbol { case idle, busy }
        enum E: Int, MachineSymbol { case start, step }
        var definition = MachineDefinition<S, E, [String]>(initial: .idle)
        definition.state(.idle) { s in
            s.on(.start, to: .busy) { log, fx in
                log.append("start action begins")
                fx.send(.step)
                fx.send(.step)
                log.append("start action ends")
            }
        }
        definition.state(.busy) { s in
            s.onEntry { log, _ in log.append("enter busy") }
            s.on(.step) { log, fx in log.append("step in \(fx.state)") }
        }
        var machine = StateMachine(table: try definition.compile(), context: [], queueCapacity: 2)
        machine.start()
        #expect(machine.send(.start, at: .zero) == .transitioned)
        #expect(machine.context == ["start action begins", "start action ends", "enter busy", "step in busy", "step in busy"])
    }

    @Test("an action that sends into a full queue loses the event and it is counted")
    func actionQueueOverflowIsCounted() throws {
        enum S: Int, MachineSymbol { case only }
        enum E: Int, MachineSymbol { case burst, tick }
        var definition = MachineDefinition<S, E, Int>(initial: .only)
        definition.state(.only) { s in
            s.on(.burst) { _, fx in for _ in 0..<5 { fx.send(.tick) } }
            s.on(.tick) { ticks, _ in ticks += 1 }
        }
        var machine = StateMachine(table: try definition.compile(), context: 0, queueCapacity: 3)
        machine.start()
        machine.send(.burst, at: .zero)
        #expect(machine.context == 3)
        #expect(machine.statistics.droppedSends == 2)
    }

    @Test("can(event) answers for the current state and context without running anything")
    func canAnswers() throws {
        var machine = try startedGate()
        #expect(machine.can(.coin))
        #expect(machine.can(.push), "an internal transition is taken too")
        #expect(!machine.can(.timeout))
        #expect(!machine.can(.repair))
        machine.send(.fault, at: .zero)
        #expect(machine.can(.repair))
        #expect(!machine.can(.push))
        #expect(machine.context.coins == 0)
    }

    @Test("a guard that fails everywhere leaves the event ignored; can() says no")
    func failingGuardIgnores() throws {
        enum S: Int, MachineSymbol { case a, b }
        enum E: Int, MachineSymbol { case go }
        var definition = MachineDefinition<S, E, Bool>(initial: .a)
        definition.state(.a) { s in s.on(.go, when: Guard("allowed") { $0 }, to: .b) }
        definition.state(.b) { s in s.on(.go, to: .a) }
        var machine = StateMachine(table: try definition.compile(), context: false)
        machine.start()
        #expect(!machine.can(.go))
        #expect(machine.send(.go, at: .zero) == .ignored)
        machine.context = true
        #expect(machine.can(.go))
        #expect(machine.send(.go, at: .zero) == .transitioned)
    }

    @Test("a target equal to the own state re-enters it; no target is internal")
    func selfTransitionReenters() throws {
        enum S: Int, MachineSymbol { case only }
        enum E: Int, MachineSymbol { case reenter, stay }
        var definition = MachineDefinition<S, E, [String]>(initial: .only)
        definition.state(.only) { s in
            s.onEntry { log, _ in log.append("entry") }
            s.onExit { log, _ in log.append("exit") }
            s.on(.reenter, to: .only) { log, _ in log.append("action") }
            s.on(.stay) { log, _ in log.append("internal") }
        }
        var machine = StateMachine(table: try definition.compile(), context: [])
        machine.start()
        #expect(machine.send(.reenter, at: .zero) == .transitioned)
        #expect(machine.send(.stay, at: .zero) == .handledInternally)
        #expect(machine.context == ["entry", "exit", "action", "entry", "internal"])
    }

    @Test("hooks see every event; the observer sees every transition")
    func hooks() throws {
        final class Seen { var before: [String] = []; var after: [String] = []; var moves: [String] = [] }
        let seen = Seen()
        var machine = StateMachine(table: try gateTable(), context: GateContext())
        machine.hooks.beforeEvent = { state, event in seen.before.append("\(state.name).\(event.name)") }
        machine.hooks.afterEvent = { record in seen.after.append("\(record.event.name):\(record.outcome)") }
        machine.hooks.transitionObserver = { from, event, to in seen.moves.append("\(from.name)-\(event.name)->\(to.name)") }
        machine.start()
        machine.send(.timeout, at: at(0))
        machine.send(.coin, at: at(1))
        machine.send(.coin, at: at(2))
        #expect(seen.before == ["locked.timeout", "locked.coin", "unlocked.coin", "unlocked.chime"])
        #expect(seen.after == ["timeout:ignored", "coin:transitioned", "coin:internal", "chime:internal"])
        #expect(seen.moves == ["locked-coin->unlocked"])
    }

    @Test("an event stamped earlier than one already handled is handled at the later time")
    func timeNeverGoesBackwards() throws {
        let trace = TraceRing<GateState, GateEvent>(capacity: 8)
        var machine = StateMachine(table: try gateTable(), context: GateContext(), trace: trace)
        machine.start()
        machine.send(.push, at: at(2))
        machine.send(.push, at: at(1))
        var times: [MachineInstant] = []
        trace.drain { times.append($0.time) }
        #expect(times == [at(2), at(2)])
    }
}
