import ControllerFSM

/// Machines declared here for the diagram's tests: nothing of the turnstile in them.

/// A tiny door: three states, a guard whose label needs escaping, a re-entering row.
enum DoorState: Int, MachineSymbol { case shut, ajar, wide }
enum DoorEvent: Int, MachineSymbol { case nudge, shove, slam, creak }

func doorTable() throws -> TransitionTable<DoorState, DoorEvent, Int> {
    var definition = MachineDefinition<DoorState, DoorEvent, Int>(initial: .shut)
    definition.state(.shut) { s in
        s.on(.nudge, to: .ajar)
        s.on(.shove, when: Guard("force < 3 & hinge <ok>") { $0 < 3 }, to: .wide)
        s.on(.creak)
    }
    definition.state(.ajar) { s in
        s.on(.nudge, to: .wide)
        s.on(.slam, to: .shut)
        s.on(.creak, to: .ajar)
    }
    definition.state(.wide) { s in
        s.on(.slam, to: .shut)
        s.on(.creak)
    }
    return try definition.compile()
}

/// The parking barrier's shape (docs/parking-barrier.md): six states, its rows with
/// their guards, the level edges every state takes; no actions.
enum ArmState: Int, MachineSymbol { case closed, opening, open, closing, fault, emergency }
enum ArmEvent: Int, MachineSymbol {
    case request, vehicleIn, vehicleOut, blocked, unblocked, upReached, upLeft, downReached, downLeft
    case timeout, fault, repair, emergencyOn, emergencyOff
}

struct ArmContext: Sendable {
    var occupied = false
    var passed = false
    var wasFault = false
}

func barrierTable() throws -> TransitionTable<ArmState, ArmEvent, ArmContext> {
    var definition = MachineDefinition<ArmState, ArmEvent, ArmContext>(initial: .closed)
    let levels: [ArmEvent] = [.vehicleIn, .vehicleOut, .blocked, .unblocked, .upReached, .upLeft, .downReached, .downLeft]
    /// The level edges a state takes without a row of its own: it only notes the level.
    func notingLevels(_ s: inout StateBlock<ArmState, ArmEvent, ArmContext>, except answered: [ArmEvent]) {
        for event in levels where !answered.contains(event) { s.on(event) }
    }
    definition.state(.closed) { s in
        s.on(.request, to: .opening)
        s.on(.downLeft, to: .fault)
        s.on(.fault, to: .fault)
        s.on(.emergencyOn, to: .emergency)
        notingLevels(&s, except: [.downLeft])
    }
    definition.state(.opening) { s in
        s.on(.upReached, to: .open)
        s.on(.timeout, to: .fault)
        s.on(.request)
        s.on(.fault, to: .fault)
        s.on(.emergencyOn, to: .emergency)
        notingLevels(&s, except: [.upReached])
    }
    definition.state(.open) { s in
        s.on(.request)
        s.on(.vehicleIn)
        s.on(.vehicleOut)
        s.on(.timeout, when: Guard("a vehicle on the loop or the beam broken") { $0.occupied })
        s.on(.timeout, when: Guard("clear, passed") { $0.passed }, to: .closing)
        s.on(.timeout, when: Guard("clear, not passed") { !$0.passed }, to: .closing)
        s.on(.fault, to: .fault)
        s.on(.emergencyOn, to: .emergency)
        notingLevels(&s, except: [.vehicleIn, .vehicleOut])
    }
    definition.state(.closing) { s in
        s.on(.downReached, to: .closed)
        s.on(.timeout, to: .fault)
        s.on(.blocked, to: .opening)
        s.on(.vehicleIn, to: .opening)
        s.on(.request, to: .opening)
        s.on(.fault, to: .fault)
        s.on(.emergencyOn, to: .emergency)
        notingLevels(&s, except: [.downReached, .blocked, .vehicleIn])
    }
    definition.state(.fault) { s in
        s.on(.repair, to: .opening)
        s.on(.request)
        s.on(.emergencyOn, to: .emergency)
        notingLevels(&s, except: [])
    }
    definition.state(.emergency) { s in
        s.on(.upReached)
        s.on(.timeout)
        s.on(.request)
        s.on(.emergencyOff, when: Guard("remembered fault") { $0.wasFault }, to: .fault)
        s.on(.emergencyOff, when: Guard("otherwise") { !$0.wasFault }, to: .open)
        notingLevels(&s, except: [.upReached])
    }
    return try definition.compile()
}
