import TurnstileTestSupport
import ControllerFSM
import PropertyBased
import Testing
import ControllerHost
import Turnstile
import ControllerTestSupport

/// The turnstile's table, event by event (the scenario tests drive the same rows through the
/// input lines).
@Suite("Turnstile machine")
struct TurnstileMachineTests {
    typealias Machine = TurnstileMachine.Machine

    func machine(in state: TurnstileState = .locked) -> Machine {
        var machine = TurnstileMachine.makeMachine()
        machine.start()
        let path: [TurnstileEvent] = switch state {
        case .locked: []
        case .unlocked: [.coin]
        case .broken: [.fault]
        case .outOfOrder: [.repair]
        case .emergency: [.emergencyOn]
        case .operating, .inService, .outOfService, .resume: []  // never the state: the #expect below fails
        }
        for event in path { machine.send(event, at: .zero) }
        #expect(machine.state == state)
        return machine
    }

    @Test("the table compiles without warnings and every state is reachable")
    func tableIsClean() {
        #expect(TurnstileMachine.table.warnings.isEmpty)
    }

    @Test("locked: a coin unlocks with credit 1; a push is forced and asks for an alarm pulse")
    func lockedRows() {
        var m = machine()
        #expect(m.send(.push, at: .zero) == .handledInternally)
        #expect(m.context.counters.forcedPushes == 1 && m.context.outputs.alarmPulseRequested)
        #expect(m.send(.coin, at: .zero) == .transitioned)
        #expect(m.state == .unlocked && m.context.credit == 1 && !m.context.outputs.lock)
    }

    @Test("unlocked: credit stacks; pushes spend it; the last one relocks")
    func creditStacking() {
        var m = machine(in: .unlocked)
        m.send(.coin, at: .zero)
        m.send(.coin, at: .zero)
        #expect(m.context.credit == 3)
        m.send(.push, at: .zero)
        m.send(.push, at: .zero)
        #expect(m.state == .unlocked && m.context.credit == 1)
        m.send(.push, at: .zero)
        #expect(m.state == .locked && m.context.credit == 0 && m.context.outputs.lock)
        #expect(m.context.counters.passages == 3 && m.context.counters.coins == 3)
    }

    @Test("unlocked: the relock timeout expires the credit; a coin restarts it")
    func relockTimeout() {
        var m = machine(in: .unlocked)
        m.send(.coin, at: MachineInstant(nanoseconds: 4_000_000_000))
        m.advance(to: MachineInstant(nanoseconds: 8_999_999_999))
        #expect(m.state == .unlocked)
        m.advance(to: MachineInstant(nanoseconds: 9_000_000_000))
        #expect(m.state == .locked)
        #expect(m.context.counters.expiredCredits == 2 && m.context.credit == 0)
    }

    @Test("fault from locked or unlocked breaks it, expiring credit; broken raises the alarm and refuses coins")
    func faultRows() {
        for start in [TurnstileState.locked, .unlocked] {
            var m = machine(in: start)
            #expect(m.send(.fault, at: .zero) == .transitioned)
            #expect(m.state == .broken)
            #expect(m.context.outputs.alarm && m.context.outputs.inhibit && m.context.outputs.lock && !m.context.outputs.ready)
            #expect(m.context.counters.faults == 1)
            m.send(.coin, at: .zero)
            #expect(m.context.counters.coinsOutOfService == 1)
            #expect(m.send(.fault, at: .zero) == .ignored)
        }
    }

    @Test("repair from locked, unlocked or broken takes the repair period, which a coin does not extend")
    func repairRows() {
        for start in [TurnstileState.locked, .unlocked, .broken] {
            var m = machine(in: start)
            #expect(m.send(.repair, at: .zero) == .transitioned)
            #expect(m.state == .outOfOrder && !m.context.outputs.alarm)
            m.send(.coin, at: MachineInstant(nanoseconds: 4_000_000_000))
            m.advance(to: MachineInstant(nanoseconds: 4_999_999_999))
            #expect(m.state == .outOfOrder)
            m.advance(to: MachineInstant(nanoseconds: 5_000_000_000))
            #expect(m.state == .locked, "from \(start)")
            #expect(m.context.counters.repairs == 1)
        }
    }

    @Test("emergency from every other state releases the arm; off returns to locked or broken")
    func emergencyRows() {
        let expected: [TurnstileState: TurnstileState] = [
            .locked: .locked, .unlocked: .locked, .broken: .broken, .outOfOrder: .broken,
        ]
        for (start, after) in expected {
            var m = machine(in: start)
            #expect(m.send(.emergencyOn, at: .zero) == .transitioned)
            #expect(m.state == .emergency && !m.context.outputs.lock && m.context.credit == 0)
            m.send(.push, at: .zero)
            m.send(.coin, at: .zero)
            #expect(m.context.counters.freePassages == 1 && m.context.counters.coinsOutOfService >= 1)
            #expect(m.send(.emergencyOn, at: .zero) == .ignored)
            m.send(.emergencyOff, at: .zero)
            #expect(m.state == after, "emergency interrupting \(start)")
        }
    }

    @Test("invariants hold on random event streams (property-based: a failure shrinks to a short stream)")
    func invariantsOnRandomStreams() async {
        let events = Gen<TurnstileEvent>.case.array(of: 1...300)
        let gaps = Gen.int(in: 0...3_000).array(of: 300)
        await propertyCheck(count: PropertyCases.count(300), input: events, gaps) { events, gaps in
            var m = machine()
            var time: Int64 = 0
            for (step, event) in events.enumerated() {
                time += Int64(gaps[step]) * 1_000_000
                m.send(event, at: MachineInstant(nanoseconds: time))
                let c = m.context
                let released = m.state == .unlocked || m.state == .emergency
                #expect(c.outputs.lock == !released, "relay released exactly in unlocked/emergency, after \(events[...step])")
                #expect(c.counters.coins == c.counters.passages + c.counters.expiredCredits + c.counters.coinsOutOfService + c.credit,
                        "money balances, after \(events[...step])")
                #expect(m.state == .unlocked || c.credit == 0, "credit only in unlocked, after \(events[...step])")
                #expect(c.outputs.alarm == (m.state == .broken))
                #expect(c.outputs.ready == (m.state == .locked || m.state == .unlocked))
                #expect(c.outputs.inhibit == !(m.state == .locked || m.state == .unlocked))
            }
            #expect(m.context.counters.coins == events.count { $0 == .coin }, "every coin counted once")
        }
    }

    @Test("the diagram shows every row, guards labelled, each in the superstate that answers it")
    func diagram() {
        let mermaid = TurnstileMachine.table.mermaid()
        #expect(mermaid.contains("unlocked --> unlocked : push [credit > 1] (internal)"))
        #expect(mermaid.contains("unlocked --> locked : push [credit == 1]"))
        // The fire alarm once, for every state inside operating; its end through the history.
        #expect(mermaid.contains("    operating --> emergency : emergencyOn\n"))
        #expect(mermaid.contains("    emergency --> resume : emergencyOff\n"))
        #expect(mermaid.contains("        resume --> inService : default\n"))
        #expect(mermaid.contains("        inService --> broken : fault\n"))
        let rows = mermaid.split(separator: "\n").filter { $0.contains(" : ") && !$0.hasSuffix(" : default") }
        #expect(rows.count == TurnstileMachine.table.rowInfo.count)
    }
}
