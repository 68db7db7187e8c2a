import ControllerFSM

/// A turnstile-like machine used across the core tests: guards, internal transitions, entry and
/// exit work, a timer and an action that sends an event.
///
/// One file for two packages: AllocationTests/Tests/AllocationTests/Gate.swift is a link to it, so
/// the allocation tests compile the machine into their own module, optimised with their code, as
/// they compiled their own copy (a module of its own would be optimised apart from them).
enum GateState: Int, MachineSymbol { case locked, unlocked, broken }
enum GateEvent: Int, MachineSymbol { case coin, push, timeout, fault, repair, chime }

struct GateContext {
    var coins = 0
    var passages = 0
    var credit = 0
    var forcedPushes = 0
    var relayReleased = false
    var alarm = false
    var chimes = 0
    /// Entry/exit work, in order, when a test wants to see it (left nil where allocation matters).
    var journal: [String]?

    mutating func note(_ entry: String) { journal?.append(entry) }
}

enum RelockTimer: Int, MachineTimer { case relock }

let relockDelay = Duration.seconds(5)

func gateDefinition() -> MachineDefinition<GateState, GateEvent, GateContext> {
    var definition = MachineDefinition<GateState, GateEvent, GateContext>(initial: .locked)
    definition.state(.locked) { s in
        s.onEntry { c, _ in c.relayReleased = false; c.note("enter locked") }
        s.onExit { c, _ in c.note("exit locked") }
        s.on(.coin, to: .unlocked) { c, _ in c.coins += 1; c.credit = 1 }
        s.on(.push) { c, _ in c.forcedPushes += 1 }
        s.on(.fault, to: .broken)
    }
    definition.state(.unlocked) { s in
        s.onEntry { c, fx in
            c.relayReleased = true
            c.note("enter unlocked")
            fx.startTimer(RelockTimer.relock, after: relockDelay, sending: .timeout)
        }
        s.onExit { c, fx in fx.cancelTimer(RelockTimer.relock); c.note("exit unlocked") }
        s.on(.coin) { c, fx in
            c.coins += 1
            c.credit += 1
            fx.startTimer(RelockTimer.relock, after: relockDelay, sending: .timeout)
            fx.send(.chime)
        }
        s.on(.push, when: Guard("credit > 1") { $0.credit > 1 }) { c, fx in
            c.passages += 1
            c.credit -= 1
            fx.startTimer(RelockTimer.relock, after: relockDelay, sending: .timeout)
        }
        s.on(.push, to: .locked) { c, _ in c.passages += 1; c.credit = 0 }
        s.on(.timeout, to: .locked) { c, _ in c.credit = 0 }
        s.on(.fault, to: .broken) { c, _ in c.credit = 0 }
        s.on(.chime) { c, _ in c.chimes += 1 }
    }
    definition.state(.broken) { s in
        s.onEntry { c, _ in c.alarm = true; c.note("enter broken") }
        s.onExit { c, _ in c.alarm = false; c.note("exit broken") }
        s.on(.coin) { c, _ in c.coins += 1 }
        s.on(.repair, to: .locked)
    }
    return definition
}

func gateTable() throws -> TransitionTable<GateState, GateEvent, GateContext> {
    try gateDefinition().compile()
}

func at(_ seconds: Double) -> MachineInstant {
    MachineInstant(nanoseconds: Int64((seconds * 1e9).rounded()))
}
