import ControllerFSM
import Testing

/// What a host shows before the machine starts, and which states a machine can rest in: a table
/// whose initial state is a superstate must not be taken as being in it alone.
@Suite("Atomic states and the start state")
struct AtomicStatesTests {
    @Test("the atomic states are every state but the superstates and the histories, in declaration order")
    func atomicStates() throws {
        let table = try officeDefinition().compile()
        #expect(table.atomicStates == [.idle, .slow, .fast, .alarmed])
        let flat = try MachineDefinition<OfficeState, OfficeEvent, OfficeContext>.everyStateTopLevel().compile(tolerating: [.unreachableState])
        #expect(flat.atomicStates == OfficeState.allCases, "a flat machine rests in every state")
    }

    @Test("entering a superstate or a history leads to the atomic state its defaults name; an atomic state is itself")
    func defaultAtomicState() throws {
        let table = try officeDefinition().compile()
        // The guarded initial (busy when startBusy) is passed over for the fallback, idle.
        #expect(table.defaultAtomicState(entering: .working) == .idle)
        #expect(table.defaultAtomicState(entering: .busy) == .slow)
        #expect(table.defaultAtomicState(entering: .resume) == .idle)
        #expect(table.defaultAtomicState(entering: .deepResume) == .idle)
        #expect(table.defaultAtomicState(entering: .fast) == .fast)
    }

    @Test("the start state is the atomic state a start with no guard holding reaches, and the machine agrees")
    func startState() throws {
        let table = try officeDefinition().compile()
        #expect(table.initial == .working && table.startState == .idle)
        var machine = BareMachine(table: table, context: OfficeContext())
        machine.start()
        #expect(machine.state == table.startState)
    }
}

extension MachineDefinition where State == OfficeState, Event == OfficeEvent, Context == OfficeContext {
    /// The office's states all at the top, no rows: a flat machine over the same symbols.
    static func everyStateTopLevel() -> Self {
        var definition = Self(initial: .working)
        for state in OfficeState.allCases { definition.state(state) { _ in } }
        return definition
    }
}
