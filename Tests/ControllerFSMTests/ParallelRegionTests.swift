import ControllerFSM
import Testing

/// Parallel regions on SCXML's rules: every region entered in document order and exited in
/// reverse; an event offered to every region, a superstate's row taken once; of two rows whose
/// exits overlap the first in document order wins, unless the second's source is inside the
/// first's; a parallel state done when every region is; several targets at once; a history of
/// a parallel state remembering every region.
@Suite("Parallel regions")
struct ParallelRegionTests {
    enum Door: Int, MachineSymbol {
        case doors, outer, outerClosed, outerOpen, outerDone, inner, innerClosed, innerOpen, innerDone, alarm, back, lobby
    }
    enum Input: Int, MachineSymbol { case toggle, fire, reset, x, y, finish, allDone, resume, both }
    struct Log { var journal: [String] = [] }

    /// Two doors, each its own region; `fire` (answered once, by `doors`) leaves both.
    static func interlock(
        initial: Door = .doors, lobby: (inout StateBlock<Door, Input, Log>) -> Void = { _ in }
    ) -> MachineDefinition<Door, Input, Log> {
        var definition = MachineDefinition<Door, Input, Log>(initial: initial)
        func logged(_ state: Door, _ s: inout StateBlock<Door, Input, Log>) {
            s.onEntry { c, _ in c.journal.append("+\(state.name)") }
            s.onExit { c, _ in c.journal.append("-\(state.name)") }
        }
        definition.parallel(.doors, whenDone: .allDone) { s in
            logged(.doors, &s)
            s.on(.fire, to: .alarm) { c, _ in c.journal.append("fire") }
            s.on(.y, to: .alarm) { c, _ in c.journal.append("doors y") }
            s.on(.allDone, to: .lobby)
        }
        definition.state(.outer, in: .doors) { s in
            logged(.outer, &s)
            s.initial(.outerClosed) { c, _ in c.journal.append("outer starts") }
        }
        definition.state(.outerClosed, in: .outer) { s in
            logged(.outerClosed, &s)
            s.on(.toggle, to: .outerOpen) { c, _ in c.journal.append("open outer") }
            s.on(.x, to: .alarm) { c, _ in c.journal.append("outer x") }
            s.on(.finish, to: .outerDone)
        }
        definition.state(.outerOpen, in: .outer) { s in
            logged(.outerOpen, &s)
            s.on(.toggle, to: .outerClosed) { c, _ in c.journal.append("close outer") }
        }
        definition.final(.outerDone, in: .outer) { s in logged(.outerDone, &s) }
        definition.state(.inner, in: .doors) { s in
            logged(.inner, &s)
            s.initial(.innerClosed)
        }
        definition.state(.innerClosed, in: .inner) { s in
            logged(.innerClosed, &s)
            s.on(.toggle, to: .innerOpen) { c, _ in c.journal.append("open inner") }
            s.on(.x, to: .innerOpen) { c, _ in c.journal.append("inner x") }
            s.on(.y, to: .innerOpen) { c, _ in c.journal.append("inner y") }
            s.on(.finish, to: .innerDone)
        }
        definition.state(.innerOpen, in: .inner) { s in
            logged(.innerOpen, &s)
            s.on(.toggle, to: .innerClosed) { c, _ in c.journal.append("close inner") }
        }
        definition.final(.innerDone, in: .inner) { s in logged(.innerDone, &s) }
        definition.state(.alarm) { s in
            logged(.alarm, &s)
            s.on(.reset, to: .doors)
            s.on(.resume, to: .back)
            s.on(.both, to: [.outerOpen, .innerOpen]) { c, _ in c.journal.append("both") }
        }
        definition.history(.back, of: .doors, deep: true, default: .outerClosed) { c, _ in c.journal.append("back by default") }
        definition.state(.lobby) { s in
            logged(.lobby, &s)
            lobby(&s)
        }
        return definition
    }

    static func started(_ definition: MachineDefinition<Door, Input, Log> = interlock()) throws -> BareMachine<Door, Input, Log> {
        var machine = BareMachine(table: try definition.compile(), context: Log())
        machine.start()
        return machine
    }

    static func step(_ machine: inout BareMachine<Door, Input, Log>, _ event: Input) -> [String] {
        machine.context.journal = []
        machine.send(event, at: .zero)
        return machine.context.journal
    }

    @Test("every region is entered in document order, each superstate's initial action after its entry")
    func start() throws {
        let machine = try Self.started()
        #expect(machine.context.journal == ["+doors", "+outer", "outer starts", "+outerClosed", "+inner", "+innerClosed"])
        #expect(machine.activeStates == [.outerClosed, .innerClosed])
        #expect(machine.state == .outerClosed)
        #expect(machine.isActive(.doors) && machine.isActive(.inner) && !machine.isActive(.outerOpen))
    }

    @Test("an event moves every region that answers it: exits in reverse document order, actions in order, entries in order")
    func bothRegionsMove() throws {
        var machine = try Self.started()
        #expect(Self.step(&machine, .toggle) == ["-innerClosed", "-outerClosed", "open outer", "open inner", "+outerOpen", "+innerOpen"])
        #expect(machine.activeStates == [.outerOpen, .innerOpen])
    }

    @Test("a superstate's row selected from two regions is taken once, leaving every region")
    func superstateRowOnce() throws {
        var machine = try Self.started()
        _ = Self.step(&machine, .toggle)
        #expect(Self.step(&machine, .fire) == ["-innerOpen", "-inner", "-outerOpen", "-outer", "-doors", "fire", "+alarm"])
        #expect(machine.activeStates == [.alarm])
        #expect(Self.step(&machine, .reset) == ["-alarm", "+doors", "+outer", "outer starts", "+outerClosed", "+inner", "+innerClosed"])
    }

    @Test("of two rows whose exits overlap, the first in document order is taken")
    func firstInDocumentOrderWins() throws {
        var machine = try Self.started()
        // outerClosed's x leaves doors; innerClosed's x (later) would leave innerClosed: preempted.
        #expect(Self.step(&machine, .x) == ["-innerClosed", "-inner", "-outerClosed", "-outer", "-doors", "outer x", "+alarm"])
    }

    @Test("a row whose source is inside an earlier selected row's source replaces it")
    func innerSourcePreempts() throws {
        var machine = try Self.started()
        // doors' y is selected first (from outerClosed), innerClosed's y replaces it.
        #expect(Self.step(&machine, .y) == ["-innerClosed", "inner y", "+innerOpen"])
        #expect(machine.activeStates == [.outerClosed, .innerOpen])
    }

    @Test("the parallel state is done when every region has entered a final state, once")
    func doneWhenEveryRegionIs() throws {
        var machine = try Self.started()
        #expect(Self.step(&machine, .finish) == ["-innerClosed", "-outerClosed", "+outerDone", "+innerDone", "-innerDone", "-inner", "-outerDone", "-outer", "-doors", "+lobby"])
        #expect(machine.activeStates == [.lobby])
        #expect(machine.statistics.droppedSends == 0)
    }

    @Test("a row to several states enters one in each region, the others at their start")
    func severalTargets() throws {
        var machine = try Self.started()
        _ = Self.step(&machine, .fire)
        #expect(Self.step(&machine, .both) == ["-alarm", "both", "+doors", "+outer", "+outerOpen", "+inner", "+innerOpen"])
        #expect(machine.activeStates == [.outerOpen, .innerOpen])
    }

    @Test("a history of a parallel state: its default (with its action, after the entry of the state it belongs to) the first time")
    func historyDefault() throws {
        var machine = try Self.started(Self.interlock(initial: .alarm))
        #expect(Self.step(&machine, .resume) == ["-alarm", "+doors", "back by default", "+outer", "+outerClosed", "+inner", "+innerClosed"])
    }

    @Test("a deep history of a parallel state brings every region back")
    func historyOfRegions() throws {
        var machine = try Self.started()
        _ = Self.step(&machine, .fire)
        #expect(Self.step(&machine, .resume) == ["-alarm", "+doors", "+outer", "+outerClosed", "+inner", "+innerClosed"])
        _ = Self.step(&machine, .y)  // inner opens
        _ = Self.step(&machine, .fire)
        #expect(Self.step(&machine, .resume) == ["-alarm", "+doors", "+outer", "+outerClosed", "+inner", "+innerOpen"])
        #expect(machine.activeStates == [.outerClosed, .innerOpen])
        #expect(machine.rememberedStates == [.outerClosed])
        #expect(machine.rememberedConfigurations == [[.outerClosed, .innerOpen]])
    }

    @Test("can() looks at every region")
    func canLooksEverywhere() throws {
        var machine = try Self.started()
        #expect(machine.can(.toggle) && !machine.can(.reset))
        _ = Self.step(&machine, .fire)
        #expect(machine.can(.reset) && !machine.can(.toggle))
    }
}

@Suite("Parallel regions: what compile() refuses")
struct ParallelValidationTests {
    typealias Door = ParallelRegionTests.Door
    typealias Input = ParallelRegionTests.Input
    typealias Log = ParallelRegionTests.Log

    static func kinds(lobby: @escaping (inout StateBlock<Door, Input, Log>) -> Void) -> [DefinitionProblem.Kind] {
        kinds(of: ParallelRegionTests.interlock(lobby: lobby))
    }

    static func kinds(of definition: MachineDefinition<Door, Input, Log>) -> [DefinitionProblem.Kind] {
        do {
            _ = try definition.compile()
            return []
        } catch {
            return error.problems.map(\.kind)
        }
    }

    @Test("the interlock itself compiles")
    func valid() { #expect(Self.kinds(of: ParallelRegionTests.interlock()) == []) }

    @Test("two targets in one region, or one inside the other, are refused naming the line")
    func targetsTogether() throws {
        #expect(Self.kinds(lobby: { s in s.on(.both, to: [.outerOpen, .outerClosed]) }) == [.badTarget])
        #expect(Self.kinds(lobby: { s in s.on(.both, to: [.outer, .outerClosed]) }) == [.badTarget])
        #expect(Self.kinds(lobby: { s in s.on(.both, to: []) }) == [.badTarget])
        do {
            _ = try ParallelRegionTests.interlock { s in s.on(.both, to: [.outerOpen, .outerClosed]) }.compile()
            Issue.record("compiled")
        } catch {
            let message = error.problems.first { $0.kind == .badTarget }?.message ?? ""
            #expect(message.contains("ParallelRegionTests.swift:") && message.contains("outerOpen and outerClosed") && message.contains("same region"), "\(message)")
        }
    }

    @Test("an initial state in a parallel state, or a final state directly in one, is refused")
    func parallelShape() {
        var initialInParallel = MachineDefinition<Door, Input, Log>(initial: .doors)
        initialInParallel.parallel(.doors) { s in s.initial(.outer) }
        initialInParallel.state(.outer, in: .doors) { _ in }
        #expect(Self.kinds(of: initialInParallel).contains(.badInitial))
        var finalInParallel = MachineDefinition<Door, Input, Log>(initial: .doors)
        finalInParallel.parallel(.doors) { _ in }
        finalInParallel.state(.outer, in: .doors) { _ in }
        finalInParallel.final(.inner, in: .doors)
        #expect(Self.kinds(of: finalInParallel).contains(.badFinal))
    }

    @Test("a done event needs a final state in every region")
    func doneNeedsFinals() {
        var definition = MachineDefinition<Door, Input, Log>(initial: .doors)
        definition.parallel(.doors, whenDone: .allDone) { _ in }
        definition.state(.outer, in: .doors) { s in s.initial(.outerClosed) }
        definition.state(.outerClosed, in: .outer) { _ in }
        definition.final(.outerDone, in: .outer)
        definition.state(.inner, in: .doors) { s in s.initial(.innerClosed) }
        definition.state(.innerClosed, in: .inner) { _ in }
        do {
            _ = try definition.compile(tolerating: [.unreachableState])
            Issue.record("compiled")
        } catch {
            #expect(error.problems.contains { $0.kind == .badFinal && $0.message.contains("region inner has no final state") })
        }
    }

    @Test("a document's dead parts are tolerated when asked, and reported as warnings")
    func tolerated() throws {
        let definition = ParallelRegionTests.interlock { s in
            s.on(.toggle, to: .alarm)
            s.on(.toggle, to: .doors)
        }
        #expect(throws: MachineDefinitionError.self) { try definition.compile() }
        let table = try definition.compile(tolerating: [.duplicateRow])
        #expect(table.warnings.contains { $0.contains("answers toggle twice") })
    }
}

@Suite("The trace names where a superstate's row was written")
struct RowSourceTraceTests {
    typealias Door = ParallelRegionTests.Door
    typealias Input = ParallelRegionTests.Input
    typealias Log = ParallelRegionTests.Log

    static func rows(_ trace: TraceRing<Door, Input>, _ table: TransitionTable<Door, Input, Log>) -> [String] {
        var lines: [String] = []
        trace.drain { lines.append("\($0.from.name) \($0.event.name) \($0.to.name) \(table.rowOf($0)?.name ?? "-")") }
        return lines
    }

    @Test("with parallel regions: a row of the parallel state, a region's own row")
    func regions() throws {
        let trace = TraceRing<Door, Input>(capacity: 16)
        let table = try ParallelRegionTests.interlock().compile()
        var machine = TracedMachine(table: table, context: Log(), trace: trace)
        machine.start()
        machine.send(.toggle, at: .zero)
        machine.send(.fire, at: .zero)
        machine.send(.reset, at: .zero)
        #expect(Self.rows(trace, table) == ["outerClosed toggle outerOpen -", "outerOpen fire alarm doors", "alarm reset outerClosed -"])
    }

    @Test("with parallel regions: a row taken in the second region names that region's states, not the first's")
    func secondRegion() throws {
        let trace = TraceRing<Door, Input>(capacity: 16)
        let table = try ParallelRegionTests.interlock().compile()
        var machine = TracedMachine(table: table, context: Log(), trace: trace)
        machine.start()
        // `y`: the doors' row (selected from the outer region) gives way to the inner
        // region's own, whose source is inside it; the outer region does not move.
        machine.send(.y, at: .zero)
        machine.send(.toggle, at: .zero)
        machine.send(.reset, at: .zero)
        #expect(machine.activeStates == [.outerOpen, .innerClosed])
        #expect(Self.rows(trace, table) == ["innerClosed y innerOpen -", "outerClosed toggle outerOpen -", "outerOpen reset outerOpen -"])
    }

    enum Pair: Int, MachineSymbol { case both, left, l1, right, r1, r2 }

    @Test("with parallel regions: of the rows one event takes, the record names the first that moves, not a targetless one before it")
    func firstMovingRow() throws {
        var definition = MachineDefinition<Pair, Input, Log>(initial: .both)
        definition.parallel(.both) { _ in }
        definition.state(.left, in: .both) { s in s.initial(.l1) }
        definition.state(.l1, in: .left) { s in s.on(.x) { c, _ in c.journal.append("l1 x") } }
        definition.state(.right, in: .both) { s in s.initial(.r1) }
        definition.state(.r1, in: .right) { s in s.on(.x, to: .r2) }
        definition.state(.r2, in: .right) { s in s.on(.y) { c, _ in c.journal.append("r2 y") } }
        let trace = TraceRing<Pair, Input>(capacity: 16)
        let table = try definition.compile()
        var machine = TracedMachine(table: table, context: Log(), trace: trace)
        machine.start()
        machine.send(.x, at: .zero)
        machine.send(.y, at: .zero)
        #expect(machine.context.journal == ["l1 x", "r2 y"])
        var lines: [String] = []
        trace.drain { lines.append("\($0.from.name) \($0.event.name) \($0.to.name) \($0.outcome)") }
        // The internal row in the second region is named there too, not l1.
        #expect(lines == ["r1 x r2 transitioned", "r2 y r2 internal"])
    }

    enum Room: Int, MachineSymbol { case outer, closed, open, alarm }

    @Test("without regions: a superstate's row answering in a state inside it")
    func nested() throws {
        var definition = MachineDefinition<Room, Input, Log>(initial: .outer)
        definition.state(.outer) { s in
            s.initial(.closed)
            s.on(.fire, to: .alarm)
            s.on(.x) { _, _ in }
        }
        definition.state(.closed, in: .outer) { s in s.on(.toggle, to: .open) }
        definition.state(.open, in: .outer) { s in s.on(.toggle, to: .closed) }
        definition.state(.alarm) { s in s.on(.reset, to: .outer) }
        let trace = TraceRing<Room, Input>(capacity: 16)
        let table = try definition.compile()
        var machine = TracedMachine(table: table, context: Log(), trace: trace)
        machine.start()
        machine.send(.toggle, at: .zero)
        machine.send(.x, at: .zero)
        machine.send(.fire, at: .zero)
        machine.send(.y, at: .zero)
        var lines: [String] = []
        trace.drain { lines.append("\($0.from.name) \($0.event.name) \($0.to.name) \(table.rowOf($0)?.name ?? "-")") }
        #expect(lines == ["closed toggle open -", "open x open outer", "open fire alarm outer", "alarm y alarm -"])
    }
}

@Suite("Active states as bits")
struct ActiveStateBitsTests {
    @Test("one bit per active region's innermost state; one bit without regions")
    func bits() throws {
        var machine = try ParallelRegionTests.started()
        #expect(machine.activeStateBits == StateBits([ParallelRegionTests.Door.outerClosed.rawValue, ParallelRegionTests.Door.innerClosed.rawValue]))
        machine.send(.fire, at: .zero)
        #expect(machine.activeStateBits == StateBits([ParallelRegionTests.Door.alarm.rawValue]))
    }
}
