import ControllerFSM

/// A nested machine used across the hierarchy tests: three levels, an alarm answered once by
/// the outermost superstate, shallow and deep history, an initial state chosen by a guard.
///
///     working (initial: idle, or busy when `startBusy`)
///       idle
///       busy (initial: slow)
///         slow
///         fast
///       resume (shallow history of working, default idle)
///       deepResume (deep history of working, default idle)
///     alarmed
enum OfficeState: Int, MachineSymbol { case working, idle, busy, slow, fast, resume, deepResume, alarmed }
enum OfficeEvent: Int, MachineSymbol { case start, done, speed, alarm, clear, clearDeep, reset, poke, jump, restart }

struct OfficeContext {
    var startBusy = false
    var journal: [String] = []
    var pokes = 0
}

func officeDefinition() -> MachineDefinition<OfficeState, OfficeEvent, OfficeContext> {
    var definition = MachineDefinition<OfficeState, OfficeEvent, OfficeContext>(initial: .working)
    func logged(_ s: inout StateBlock<OfficeState, OfficeEvent, OfficeContext>, _ name: String) {
        s.onEntry { c, _ in c.journal.append("+" + name) }
        s.onExit { c, _ in c.journal.append("-" + name) }
    }
    definition.state(.working) { s in
        s.initial(.busy, when: Guard("start busy") { $0.startBusy })
        s.initial(.idle)
        logged(&s, "working")
        s.on(.alarm, to: .alarmed)
        // A self-transition: leaves and re-enters working.
        s.on(.reset, to: .working)
        // To a state inside working: local, working stays entered.
        s.on(.jump, to: .fast) { c, _ in c.journal.append("jump") }
        // The same, external: working is left and entered again.
        s.on(.restart, to: .idle, kind: .external) { c, _ in c.journal.append("restart") }
        s.on(.poke) { c, _ in c.pokes += 1; c.journal.append("poke working") }
    }
    definition.state(.idle, in: .working) { s in
        logged(&s, "idle")
        s.on(.start, to: .busy)
    }
    definition.state(.busy, in: .working) { s in
        s.initial(.slow)
        logged(&s, "busy")
        s.on(.done, to: .idle)
        // Falls through to working's poke when the guard is false.
        s.on(.poke, when: Guard("odd pokes") { $0.pokes % 2 == 1 }) { c, _ in c.pokes += 1; c.journal.append("poke busy") }
    }
    definition.state(.slow, in: .busy) { s in
        logged(&s, "slow")
        s.on(.speed, to: .fast)
    }
    definition.state(.fast, in: .busy) { s in
        logged(&s, "fast")
        s.on(.speed, to: .slow)
    }
    definition.history(.resume, of: .working, default: .idle)
    definition.history(.deepResume, of: .working, deep: true, default: .idle)
    definition.state(.alarmed) { s in
        logged(&s, "alarmed")
        s.on(.clear, to: .resume)
        s.on(.clearDeep, to: .deepResume)
    }
    return definition
}
