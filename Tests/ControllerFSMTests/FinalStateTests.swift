import ControllerFSM
import Testing

/// Final states: entering one completes its superstate, which sends its done event (queued after
/// what the final state's entry sent); a final state at the top finishes the machine.
@Suite("Final states and done events")
struct FinalStateTests {
    enum S: Int, MachineSymbol { case cycle, filling, heating, ready, served, off }
    enum E: Int, MachineSymbol { case full, hot, cycleDone, serve, power, chime }
    struct C { var journal: [String] = [] }

    func definition() -> MachineDefinition<S, E, C> {
        var definition = MachineDefinition<S, E, C>(initial: .cycle)
        definition.state(.cycle, whenDone: .cycleDone) { s in
            s.initial(.filling)
            s.on(.cycleDone, to: .served) { c, _ in c.journal.append("cycle done") }
            s.on(.power, to: .off)
        }
        definition.state(.filling, in: .cycle) { s in s.on(.full, to: .heating) }
        definition.state(.heating, in: .cycle) { s in s.on(.hot, to: .ready) }
        definition.final(.ready, in: .cycle) { s in
            s.onEntry { c, fx in c.journal.append("+ready"); fx.send(.chime) }
        }
        definition.state(.served) { s in
            s.on(.chime) { c, _ in c.journal.append("chime") }
            s.on(.serve, to: .off)
        }
        definition.final(.off)
        return definition
    }

    @Test("a final state's superstate sends its done event, after what the final state's entry sent")
    func doneEvent() throws {
        var machine = BareMachine(table: try definition().compile(), context: C())
        machine.start()
        machine.send(.full, at: .zero)
        machine.send(.hot, at: .zero)
        #expect(machine.state == .served)
        #expect(machine.context.journal == ["+ready", "cycle done"], "the chime was dispatched first, in ready, and ignored there")
        #expect(!machine.isFinished)
        machine.send(.serve, at: .zero)
        #expect(machine.state == .off && machine.isFinished)
        #expect(machine.send(.power, at: .zero) == .ignored, "a finished machine answers nothing")
    }

    @Test("a final state with a row, a done event without a final state, are refused")
    func refusals() {
        var rows = definition()
        rows.final(.off) { s in s.on(.power, to: .cycle) }
        #expect(throws: MachineDefinitionError.self) { try rows.compile() }
        var noFinal = MachineDefinition<S, E, C>(initial: .cycle)
        noFinal.state(.cycle, whenDone: .cycleDone) { s in s.initial(.filling) }
        noFinal.state(.filling, in: .cycle) { s in s.on(.full, to: .heating) }
        noFinal.state(.heating, in: .cycle) { s in s.on(.hot, to: .ready) }
        noFinal.state(.ready, in: .cycle) { s in s.on(.serve, to: .served) }
        noFinal.state(.served) { s in s.on(.power, to: .off) }
        noFinal.final(.off)
        do {
            _ = try noFinal.compile()
            Issue.record("a done event without a final state compiled")
        } catch {
            #expect(error.problems.contains { $0.kind == .badFinal && $0.message.contains("no final state is inside it") }, "\(error)")
        }
    }

    @Test("the table knows its final states")
    func queries() throws {
        let table = try definition().compile()
        #expect(table.isFinal(.ready) && table.isFinal(.off) && !table.isFinal(.served))
        #expect(table.warnings.isEmpty, "\(table.warnings)")
    }
}
