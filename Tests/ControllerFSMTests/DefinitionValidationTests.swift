import ControllerFSM
import Testing

@Suite("Definition validation")
struct DefinitionValidationTests {
    enum S: Int, MachineSymbol { case idle, running, done }
    enum E: Int, MachineSymbol { case go, stop }

    func problems(_ definition: MachineDefinition<S, E, Int>) -> [DefinitionProblem] {
        do {
            _ = try definition.compile()
            return []
        } catch {
            return error.problems
        }
    }

    @Test("a valid definition compiles, with no warnings")
    func validCompiles() throws {
        var definition = MachineDefinition<S, E, Int>(initial: .idle)
        definition.state(.idle) { s in s.on(.go, to: .running) }
        definition.state(.running) { s in s.on(.stop, to: .done) }
        definition.state(.done) { s in s.on(.go, to: .idle) }
        let table = try definition.compile()
        #expect(table.warnings.isEmpty)
        #expect(table.rows(for: .running, .stop).map(\.target) == [.done])
        #expect(table.rows(for: .running, .go).isEmpty)
    }

    @Test("an event answered twice without a guard is refused, naming state, event and both lines")
    func duplicateRow() throws {
        var definition = MachineDefinition<S, E, Int>(initial: .idle)
        let firstLine = #line + 2
        definition.state(.idle) { s in
            s.on(.go, to: .running)
            s.on(.go, to: .done)
        }
        definition.state(.running) { _ in }
        definition.state(.done) { _ in }
        let found = problems(definition)
        #expect(found.count == 1)
        let problem = try #require(found.first)
        #expect(problem.kind == .duplicateRow)
        #expect(problem.state == "idle" && problem.event == "go")
        #expect(problem.message.contains("at ControllerFSMTests/DefinitionValidationTests.swift:\(firstLine) and ControllerFSMTests/DefinitionValidationTests.swift:\(firstLine + 1)"))
        #expect(problem.message.contains("state idle answers go twice without a guard"))
    }

    @Test("a row after an unguarded row for the same event can never run and is refused")
    func rowAfterUnguarded() {
        var definition = MachineDefinition<S, E, Int>(initial: .idle)
        definition.state(.idle) { s in
            s.on(.go, to: .running)
            s.on(.go, when: Guard("never reached") { $0 > 0 }, to: .done)
        }
        definition.state(.running) { _ in }
        definition.state(.done) { _ in }
        let found = problems(definition)
        #expect(found.map(\.kind) == [.unreachableRow])
        #expect(found.first?.message.contains("can never run") == true)
    }

    @Test("guarded rows followed by one unguarded row are fine")
    func guardedThenUnguarded() throws {
        var definition = MachineDefinition<S, E, Int>(initial: .idle)
        definition.state(.idle) { s in
            s.on(.go, when: Guard("big") { $0 > 10 }, to: .done)
            s.on(.go, when: Guard("positive") { $0 > 0 }, to: .running)
            s.on(.go)
        }
        definition.state(.running) { _ in }
        definition.state(.done) { _ in }
        #expect(problems(definition).isEmpty)
    }

    @Test("a state without a block is refused")
    func missingState() {
        var definition = MachineDefinition<S, E, Int>(initial: .idle)
        definition.state(.idle) { s in s.on(.go, to: .running) }
        definition.state(.running) { s in s.on(.stop, to: .idle) }
        let found = problems(definition)
        #expect(found.map(\.kind) == [.missingState])
        #expect(found.first?.state == "done")
        #expect(found.first?.message.contains("state done has no block") == true)
    }

    @Test("a state with two blocks is refused")
    func duplicateState() {
        var definition = MachineDefinition<S, E, Int>(initial: .idle)
        definition.state(.idle) { s in s.on(.go, to: .running) }
        definition.state(.running) { s in s.on(.go, to: .done) }
        definition.state(.done) { _ in }
        definition.state(.running) { s in s.on(.stop, to: .idle) }
        let found = problems(definition)
        #expect(found.map(\.kind) == [.duplicateState])
        #expect(found.first?.message.contains("state running has a second block") == true)
    }

    @Test("entry or exit work given twice in one block is refused")
    func duplicateWork() {
        var definition = MachineDefinition<S, E, Int>(initial: .idle)
        definition.state(.idle) { s in
            s.onEntry { _, _ in }
            s.onEntry { _, _ in }
            s.onExit { _, _ in }
            s.onExit { _, _ in }
            s.on(.go, to: .running)
        }
        definition.state(.running) { s in s.on(.go, to: .done) }
        definition.state(.done) { _ in }
        let found = problems(definition)
        #expect(found.map(\.kind) == [.duplicateWork, .duplicateWork])
        #expect(found.first?.message.contains("state idle has entry work twice") == true)
        #expect(found.last?.message.contains("put it in one onExit") == true)
    }

    @Test("a state nothing can reach is refused")
    func unreachableState() {
        var definition = MachineDefinition<S, E, Int>(initial: .idle)
        definition.state(.idle) { s in s.on(.go, to: .running) }
        definition.state(.running) { s in s.on(.stop, to: .idle) }
        definition.state(.done) { s in s.on(.go, to: .idle) }
        let found = problems(definition)
        #expect(found.map(\.kind) == [.unreachableState])
        #expect(found.first?.state == "done")
        #expect(found.first?.message.contains("cannot be reached from the initial state idle") == true)
    }

    @Test("every problem is reported at once, and the error's description lists them")
    func allProblemsReported() {
        var definition = MachineDefinition<S, E, Int>(initial: .idle)
        definition.state(.idle) { s in
            s.on(.stop)
            s.on(.stop)
        }
        definition.state(.running) { s in
            s.on(.go, to: .idle)
            s.on(.go, to: .idle)
        }
        do {
            _ = try definition.compile()
            Issue.record("expected the definition to be refused")
        } catch {
            #expect(error.problems.map(\.kind) == [.missingState, .duplicateRow, .duplicateRow])
            #expect(error.description.hasPrefix("the machine definition has 3 problem(s):"))
        }
    }

    @Test("a state with no way out and an event nobody answers are warnings, not errors")
    func warnings() throws {
        var definition = MachineDefinition<S, E, Int>(initial: .idle)
        definition.state(.idle) { s in s.on(.go, to: .running) }
        definition.state(.running) { s in s.on(.go, to: .done) }
        definition.state(.done) { s in s.on(.go) }
        let table = try definition.compile()
        #expect(table.warnings.count == 2)
        #expect(table.warnings.contains { $0.contains("state done has no way out") })
        #expect(table.warnings.contains { $0.contains("event stop is answered by no state") })
    }

    @Test("enums whose raw values are not 0, 1, 2… are refused")
    func symbolOrder() {
        enum Sparse: Int, MachineSymbol { case a = 0, b = 5 }
        var definition = MachineDefinition<Sparse, E, Int>(initial: .a)
        definition.state(.a) { s in s.on(.go, to: .b) }
        definition.state(.b) { _ in }
        #expect(throws: MachineDefinitionError.self) { try definition.compile() }
        do {
            _ = try definition.compile()
        } catch {
            #expect(error.problems.first?.kind == .symbolOrder)
            #expect(error.problems.first?.message.contains("state b has raw value 5 but is case number 1") == true)
        }
    }
}
