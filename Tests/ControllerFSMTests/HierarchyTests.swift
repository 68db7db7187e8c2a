import ControllerFSM
import Testing

@Suite("Superstates, history and initial states")
struct HierarchyTests {
    func started(startBusy: Bool = false) throws -> BareMachine<OfficeState, OfficeEvent, OfficeContext> {
        var machine = BareMachine(table: try officeDefinition().compile(), context: OfficeContext(startBusy: startBusy))
        machine.start()
        return machine
    }

    /// Sends `event` and returns the entry/exit/action journal it produced.
    func step(_ machine: inout BareMachine<OfficeState, OfficeEvent, OfficeContext>, _ event: OfficeEvent) -> [String] {
        machine.context.journal = []
        machine.send(event, at: .zero)
        return machine.context.journal
    }

    @Test("start enters every superstate outermost first and drills into the initial states")
    func startDrillsIn() throws {
        let machine = try started()
        #expect(machine.state == .idle)
        #expect(machine.context.journal == ["+working", "+idle"])
        let busy = try started(startBusy: true)
        #expect(busy.state == .slow, "the guarded initial state holds, and busy starts in slow")
        #expect(busy.context.journal == ["+working", "+busy", "+slow"])
    }

    @Test("a superstate's row answers in every state inside it; exits innermost first, enters outermost first")
    func superstateRow() throws {
        var machine = try started()
        #expect(step(&machine, .start) == ["-idle", "+busy", "+slow"])
        #expect(step(&machine, .speed) == ["-slow", "+fast"])
        #expect(step(&machine, .alarm) == ["-fast", "-busy", "-working", "+alarmed"])
        #expect(machine.state == .alarmed)
    }

    @Test("an event the state ignores, or whose guard is false, goes to the superstate")
    func fallThrough() throws {
        var machine = try started()
        _ = step(&machine, .start)
        #expect(step(&machine, .poke) == ["poke working"], "busy's guard is false at 0 pokes")
        #expect(step(&machine, .poke) == ["poke busy"], "at 1 poke busy's own row is taken")
        #expect(machine.state == .slow)
        #expect(machine.context.pokes == 2)
    }

    @Test("a self-transition of a superstate exits and re-enters it, starting again at its initial state")
    func selfTransition() throws {
        var machine = try started()
        _ = step(&machine, .start)
        #expect(step(&machine, .reset) == ["-slow", "-busy", "-working", "+working", "+idle"])
        #expect(machine.state == .idle)
    }

    @Test("a row to a state inside the superstate is local; .external leaves and re-enters it")
    func localAndExternal() throws {
        var machine = try started()
        #expect(step(&machine, .jump) == ["-idle", "jump", "+busy", "+fast"])
        #expect(machine.state == .fast)
        #expect(step(&machine, .restart) == ["-fast", "-busy", "-working", "restart", "+working", "+idle"])
        #expect(machine.state == .idle)
    }

    @Test("shallow history re-enters the child that was active, at its initial state; deep history the innermost state")
    func history() throws {
        var machine = try started()
        _ = step(&machine, .alarm)
        #expect(step(&machine, .clear) == ["-alarmed", "+working", "+idle"], "never left before: the default")
        _ = step(&machine, .start)
        _ = step(&machine, .speed)
        #expect(machine.state == .fast)
        _ = step(&machine, .alarm)
        #expect(step(&machine, .clear) == ["-alarmed", "+working", "+busy", "+slow"], "shallow: busy, at its initial slow")
        _ = step(&machine, .speed)
        _ = step(&machine, .alarm)
        #expect(step(&machine, .clearDeep) == ["-alarmed", "+working", "+busy", "+fast"], "deep: fast itself")
        #expect(machine.state == .fast)
    }

    @Test("what the histories remember is part of the machine's configuration")
    func rememberedStates() throws {
        var machine = try started()
        #expect(machine.rememberedStates == [nil, nil])
        _ = step(&machine, .start)
        _ = step(&machine, .speed)
        _ = step(&machine, .alarm)
        #expect(machine.rememberedStates == [.busy, .fast], "shallow: the child; deep: the innermost state")
    }

    @Test("a copy of a machine remembers its history on its own")
    func historyIsAValue() throws {
        var machine = try started()
        _ = step(&machine, .start)
        _ = step(&machine, .alarm)
        var copy = machine
        _ = step(&copy, .clear)
        _ = step(&copy, .done)
        _ = step(&copy, .alarm)
        #expect(step(&machine, .clear) == ["-alarmed", "+working", "+busy", "+slow"])
        #expect(step(&copy, .clear) == ["-alarmed", "+working", "+idle"])
    }

    @Test("the table answers queries about the nesting")
    func queries() throws {
        let table = try officeDefinition().compile()
        #expect(table.isNested)
        #expect(table.parent(of: .slow) == .busy)
        #expect(table.parent(of: .working) == nil)
        #expect(table.isSuperstate(.busy) && !table.isSuperstate(.slow))
        #expect(table.isHistory(.resume) && !table.isHistory(.busy))
        #expect(table.configuration(of: .fast) == [.fast, .busy, .working])
        #expect(table.rows(for: .slow, .poke).map(\.from) == [.busy, .working], "candidates innermost first")
        #expect(table.warnings.isEmpty, "\(table.warnings)")
        #expect(try !gateTable().isNested)
    }
}
