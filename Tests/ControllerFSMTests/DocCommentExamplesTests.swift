import ControllerFSM
import Testing

// The examples in ControllerFSM's doc comments, line for line, so that each compiles and does
// what its comment says (DocumentationExamplesTests finds every example's lines here, in order).
// Each lives in a namespace of its own: the examples reuse names such as `Door`.

/// MachineDefinition's, MachineSymbol's and MachineTimer's examples: a door that counts its
/// openings and relocks itself.
enum DoorExample {
    enum Door: Int, MachineSymbol { case open, closed }
    enum DoorEvent: Int, MachineSymbol { case open, close, timeout }
    struct DoorContext { var openings = 0 }
    enum DoorTimer: Int, MachineTimer { case relock, alarm }

    static func table() throws -> TransitionTable<Door, DoorEvent, DoorContext> {
        var definition = MachineDefinition<Door, DoorEvent, DoorContext>(initial: .closed)
        definition.state(.closed) { s in
            s.on(.open, to: .open) { c, _ in c.openings += 1 }
        }
        definition.state(.open) { s in
            s.on(.close, to: .closed)
        }
        let table = try definition.compile()
        return table
    }

    static func relockingTable() throws -> TransitionTable<Door, DoorEvent, DoorContext> {
        var definition = MachineDefinition<Door, DoorEvent, DoorContext>(initial: .closed)
        definition.state(.closed) { s in s.on(.open, to: .open) { c, _ in c.openings += 1 } }
        definition.state(.open) { s in
            s.onEntry { c, fx in fx.startTimer(DoorTimer.relock, after: .seconds(5), sending: .timeout) }
            s.on(.timeout, to: .closed)
        }
        return try definition.compile()
    }
}

/// MachineDefinition's superstate and history example.
enum SuperstateExample {
    enum State: Int, MachineSymbol { case working, idle, busy, alarmed, resume }
    enum Event: Int, MachineSymbol { case start, done, alarm, clear }

    static func table() throws -> TransitionTable<State, Event, Void> {
        var definition = MachineDefinition<State, Event, Void>(initial: .working)
        definition.state(.working) { s in
            s.initial(.idle)
            s.on(.alarm, to: .alarmed)        // answered in idle and busy alike
        }
        definition.state(.idle, in: .working) { s in s.on(.start, to: .busy) }
        definition.state(.busy, in: .working) { s in s.on(.done, to: .idle) }
        definition.history(.resume, of: .working, default: .idle)
        definition.state(.alarmed) { s in s.on(.clear, to: .resume) }  // back where it was
        return try definition.compile()
    }
}

/// MachineDefinition.parallel's example: two doors, each a region; when both are shut for good,
/// the airlock is sealed.
enum ParallelExample {
    enum State: Int, MachineSymbol {
        case doors, outer, outerOpen, outerClosed, inner, innerClosed, innerOpen, innerShut, evacuate, sealed
    }
    enum Event: Int, MachineSymbol { case fire, bothClosed, closeOuter, openInner, closeInner }

    static func table() throws -> TransitionTable<State, Event, Void> {
        var definition = MachineDefinition<State, Event, Void>(initial: .doors)
        definition.parallel(.doors, whenDone: .bothClosed) { s in
            s.on(.fire, to: .evacuate)            // leaves both regions
            s.on(.bothClosed, to: .sealed)
        }
        definition.state(.outer, in: .doors) { s in s.initial(.outerOpen) }
        definition.state(.inner, in: .doors) { s in s.initial(.innerClosed) }
        definition.state(.outerOpen, in: .outer) { s in s.on(.closeOuter, to: .outerClosed) }
        definition.final(.outerClosed, in: .outer)
        definition.state(.innerClosed, in: .inner) { s in s.on(.openInner, to: .innerOpen) }
        definition.state(.innerOpen, in: .inner) { s in s.on(.closeInner, to: .innerShut) }
        definition.final(.innerShut, in: .inner)
        definition.state(.evacuate) { _ in }
        definition.state(.sealed) { _ in }
        return try definition.compile()
    }
}

/// StateBlock's example: the turnstile's unlocked state, and an eventless row.
enum StateBlockExample {
    enum State: Int, MachineSymbol { case locked, unlocked }
    enum Event: Int, MachineSymbol { case coin, push, timeout }
    enum GateTimer: Int, MachineTimer { case relock }
    struct Relay {
        var released = false
        mutating func release() { released = true }
    }
    struct Context {
        var credit = 0
        var relay = Relay()
    }

    static func table() throws -> TransitionTable<State, Event, Context> {
        var definition = MachineDefinition<State, Event, Context>(initial: .locked)
        definition.state(.locked) { s in s.on(.coin, to: .unlocked) { c, _ in c.credit = 1 } }
        definition.state(.unlocked) { s in
            s.onEntry { c, fx in c.relay.release(); fx.startTimer(GateTimer.relock, after: .seconds(5), sending: .timeout) }
            s.onExit { _, fx in fx.cancelTimer(GateTimer.relock) }
            s.on(.coin) { c, fx in c.credit += 1; fx.startTimer(GateTimer.relock, after: .seconds(5), sending: .timeout) }
            s.on(.push, when: Guard("credit > 1") { $0.credit > 1 }) { c, _ in c.credit -= 1 }
            s.on(.push, to: .locked) { c, _ in c.credit = 0 }
            s.on(.timeout) { c, _ in c.credit = 0 }
            s.always(when: Guard("no credit") { $0.credit == 0 }, to: .locked)
        }
        return try definition.compile()
    }
}

@Suite("The doc comments' examples do what their comments say")
struct DocCommentExamplesTests {
    @Test("a door counts its openings; it relocks 5 s after it opened")
    func door() throws {
        var door = StateMachine(table: try DoorExample.table(), context: DoorExample.DoorContext())
        door.start()
        door.send(.open, at: .zero)
        door.send(.close, at: .zero)
        door.send(.open, at: .zero)
        #expect(door.state == .open && door.context.openings == 2)

        var relocking = StateMachine(table: try DoorExample.relockingTable(), context: DoorExample.DoorContext())
        relocking.start()
        relocking.send(.open, at: .zero)
        relocking.advance(to: MachineInstant(nanoseconds: 4_999_999_999))
        #expect(relocking.state == .open)
        relocking.advance(to: MachineInstant(nanoseconds: 5_000_000_000))
        #expect(relocking.state == .closed)
    }

    @Test("the alarm is answered in idle and busy alike, and clearing it returns where the machine was")
    func superstate() throws {
        var machine = StateMachine(table: try SuperstateExample.table(), context: ())
        machine.start()
        machine.send(.start, at: .zero)
        machine.send(.alarm, at: .zero)
        #expect(machine.state == .alarmed)
        machine.send(.clear, at: .zero)
        #expect(machine.state == .busy)
    }

    @Test("both doors' regions are active together; the fire leaves both")
    func parallel() throws {
        var machine = StateMachine(table: try ParallelExample.table(), context: ())
        machine.start()
        #expect(machine.isActive(.outerOpen) && machine.isActive(.innerClosed))
        var fire = machine
        fire.send(.fire, at: .zero)
        #expect(fire.state == .evacuate && !fire.isActive(.outerOpen) && !fire.isActive(.innerClosed))

        machine.send(.closeOuter, at: .zero)
        machine.send(.openInner, at: .zero)
        #expect(machine.isActive(.outerClosed) && machine.isActive(.innerOpen))
        machine.send(.closeInner, at: .zero)
        #expect(machine.state == .sealed, "every region done: bothClosed")
    }

    @Test("unlocked releases the relay on entry; a second coin adds credit; the last push relocks")
    func stateBlock() throws {
        var machine = StateMachine(table: try StateBlockExample.table(), context: StateBlockExample.Context())
        machine.start()
        machine.send(.coin, at: .zero)
        #expect(machine.state == .unlocked && machine.context.relay.released)
        machine.send(.coin, at: .zero)
        machine.send(.push, at: .zero)
        #expect(machine.state == .unlocked && machine.context.credit == 1)
        machine.send(.push, at: .zero)
        #expect(machine.state == .locked && machine.context.credit == 0)
    }

    @Test("StateBits' example: a set of state indices, inline")
    func stateBits() {
        var bits = StateBits()
        bits.insert(3)
        assert(bits.contains(3) && !bits.contains(4))
        #expect(bits.contains(3) && !bits.contains(4))
    }
}
