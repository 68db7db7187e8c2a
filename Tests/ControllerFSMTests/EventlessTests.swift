import ControllerFSM
import Testing

/// Eventless rows (`always`): taken after the start and after every step while their guard holds,
/// before any event an action sent; a loop is cut at MachineLimits.maximumMicrosteps and counted,
/// and one that is certain is refused by compile().
@Suite("Eventless rows")
struct EventlessTests {
    enum S: Int, MachineSymbol { case group, a, b, c, done }
    enum E: Int, MachineSymbol { case go, note, back }
    struct C {
        var journal: [String] = []
        var fuel = 0
        var spinning = false
    }

    func machine(_ build: (inout MachineDefinition<S, E, C>) -> Void, context: C = C()) throws -> BareMachine<S, E, C> {
        var definition = MachineDefinition<S, E, C>(initial: .group)
        build(&definition)
        var machine = BareMachine(table: try definition.compile(), context: context)
        machine.start()
        return machine
    }

    /// group { a, b, c }, done; a -> b -> c by eventless rows while fuel lasts.
    func chain(_ d: inout MachineDefinition<S, E, C>) {
        d.state(.group) { s in
            s.initial(.a)
            s.always(when: Guard("fuel > 5") { $0.fuel > 5 }, to: .done) { c, _ in c.journal.append("overflow") }
            s.on(.note) { c, _ in c.journal.append("note") }
        }
        d.state(.a, in: .group) { s in
            s.onEntry { c, _ in c.journal.append("+a") }
            s.on(.go) { c, fx in c.fuel += 2; fx.send(.note) }
            s.always(when: Guard("fuel > 0") { $0.fuel > 0 }, to: .b) { c, _ in c.fuel -= 1 }
        }
        d.state(.b, in: .group) { s in
            s.onEntry { c, _ in c.journal.append("+b") }
            s.always(when: Guard("fuel > 0") { $0.fuel > 0 }, to: .c) { c, _ in c.fuel -= 1 }
        }
        d.state(.c, in: .group) { s in
            s.onEntry { c, _ in c.journal.append("+c") }
            s.on(.back, to: .a)
        }
        d.state(.done) { s in s.onEntry { c, _ in c.journal.append("+done") } }
    }

    @Test("after a step, eventless rows are taken until none holds, before the events actions sent")
    func chainAfterEvent() throws {
        var machine = try self.machine(chain)
        #expect(machine.state == .a && machine.context.journal == ["+a"])
        machine.context.journal = []
        machine.send(.go, at: .zero)
        #expect(machine.state == .c)
        #expect(machine.context.journal == ["+b", "+c", "note"], "both eventless rows ran before the sent note")
        #expect(machine.statistics.eventlessSteps == 2)
        #expect(machine.statistics.dispatched == 2, "go and note; eventless steps are not events")
    }

    @Test("at the start, eventless rows are taken as soon as the initial state is entered")
    func atStart() throws {
        let machine = try self.machine(chain, context: C(fuel: 1))
        #expect(machine.state == .b)
        #expect(machine.context.journal == ["+a", "+b"])
    }

    @Test("a superstate's eventless row applies in the states inside it")
    func superstateRow() throws {
        let machine = try self.machine(chain, context: C(fuel: 9))
        #expect(machine.state == .done)
        // a's own row first (innermost first), then b's; c has none, and group's holds.
        #expect(machine.context.journal == ["+a", "+b", "+c", "overflow", "+done"])
    }

    @Test("a loop whose guards never turn false stops at MachineLimits.maximumMicrosteps, counted")
    func limit() throws {
        var machine = try self.machine { d in
            d.state(.group) { s in s.initial(.a) }
            d.state(.a, in: .group) { s in
                s.on(.go) { c, _ in c.spinning = true }
                s.always(when: Guard("spinning") { $0.spinning }, to: .b)
            }
            d.state(.b, in: .group) { s in
                s.always(when: Guard("spinning") { $0.spinning }, to: .a)
                s.on(.back, to: .c)
            }
            d.state(.c, in: .group) { s in s.on(.back, to: .done) }
            d.state(.done) { _ in }
        }
        machine.send(.go, at: .zero)
        #expect(machine.statistics.microstepLimitHits == 1)
        #expect(machine.statistics.eventlessSteps == MachineLimits.maximumMicrosteps)
    }

    @Test("unguarded eventless rows that loop, or one without a target, are refused naming the loop")
    func certainLoops() throws {
        var loop = MachineDefinition<S, E, C>(initial: .group)
        loop.state(.group) { s in s.initial(.a) }
        loop.state(.a, in: .group) { s in s.on(.go, to: .b) }
        loop.state(.b, in: .group) { s in s.always(to: .c) }
        loop.state(.c, in: .group) { s in s.always(to: .b) }
        loop.state(.done) { _ in }
        do {
            _ = try loop.compile()
            Issue.record("a certain loop compiled")
        } catch {
            #expect(error.problems.contains { $0.kind == .eventlessLoop && $0.message.contains("b -> c -> b") }, "\(error)")
        }
        var targetless = MachineDefinition<S, E, C>(initial: .group)
        targetless.state(.group) { s in s.initial(.a); s.always { c, _ in c.fuel += 1 } }
        targetless.state(.a, in: .group) { s in s.on(.go, to: .b) }
        targetless.state(.b, in: .group) { s in s.on(.go, to: .c) }
        targetless.state(.c, in: .group) { s in s.on(.go, to: .done) }
        targetless.state(.done) { s in s.on(.go, to: .group) }
        do {
            _ = try targetless.compile()
            Issue.record("an unguarded targetless eventless row compiled")
        } catch {
            #expect(error.problems.contains { $0.kind == .eventlessLoop && $0.message.contains("no guard and no target") }, "\(error)")
        }
    }
}
