// A concrete machine compiled together with Sources/ControllerFSM/Core/ in Embedded Swift mode
// (scripts/check-embedded.sh). Generic code is only fully checked once specialised, so this file
// uses every part of the core: definition, table, dispatch, timers, queue, trace, diagrams and
// SharedMachine with a lock, a clock and a wake-up of its own.
import Synchronization

enum GateState: Int, MachineSymbol {
    case locked, unlocked
    var name: String { self == .locked ? "locked" : "unlocked" }
}

enum GateEvent: Int, MachineSymbol {
    case coin, push, timeout
    var name: String {
        switch self {
        case .coin: "coin"
        case .push: "push"
        case .timeout: "timeout"
        }
    }
}

struct GateContext {
    var coins = 0
    var credit = 0
    var relayReleased = false
}

enum GateTimer: Int, MachineTimer {
    case relock
    var name: String { "relock" }
}

/// On a microcontroller the lock masks interrupts; here a spin lock stands in for it.
final class SpinLock: MachineLock {
    private let held = Atomic<Bool>(false)
    init() {}

    func withLock<Result>(_ body: () -> Result) -> Result {
        while held.exchange(true, ordering: .acquiring) {}
        defer { held.store(false, ordering: .releasing) }
        return body()
    }

    func withLockIfAvailable<Result>(_ body: () -> Result) -> Result? {
        if held.exchange(true, ordering: .acquiring) { return nil }
        defer { held.store(false, ordering: .releasing) }
        return body()
    }
}

/// What a main loop asleep in `wfi` would be woken by: here a flag an interrupt would raise.
final class PendingFlag: MachineWakeUp {
    let raised = Atomic<Bool>(false)
    init() {}
    func ring() { raised.store(true, ordering: .releasing) }
}

/// A millisecond tick counter a timer interrupt would advance (32-bit: armv6m has no 64-bit atomics).
final class TickClock: MachineClock {
    let ticks = Atomic<Int32>(0)
    init() {}
    func now() -> MachineInstant { MachineInstant(nanoseconds: Int64(ticks.load(ordering: .relaxed)) * 1_000_000) }
}

func gateDefinition() -> MachineDefinition<GateState, GateEvent, GateContext> {
    var definition = MachineDefinition<GateState, GateEvent, GateContext>(initial: .locked)
    definition.state(.locked) { s in
        s.onEntry { c, _ in c.relayReleased = false }
        s.on(.coin, to: .unlocked) { c, _ in c.coins += 1; c.credit = 1 }
    }
    definition.state(.unlocked) { s in
        s.onEntry { c, fx in
            c.relayReleased = true
            fx.startTimer(GateTimer.relock, after: .seconds(5), sending: .timeout)
        }
        s.onExit { _, fx in fx.cancelTimer(GateTimer.relock) }
        s.on(.coin) { c, _ in c.coins += 1; c.credit += 1 }
        s.on(.push, when: Guard("credit > 1") { $0.credit > 1 }) { c, fx in
            c.credit -= 1
            fx.send(.coin)
        }
        s.on(.push, to: .locked) { c, _ in c.credit = 0 }
        s.on(.timeout, to: .locked) { c, _ in c.credit = 0 }
    }
    return definition
}

@_cdecl("gate_demo")
public func gateDemo() -> Int32 {
    let table: TransitionTable<GateState, GateEvent, GateContext>
    do {
        table = try gateDefinition().compile()
    } catch {
        return -1
    }
    let trace = TraceRing<GateState, GateEvent>(capacity: 16)
    var machine = StateMachine(table: table, context: GateContext(), queueCapacity: 4, trace: trace)
    machine.start()
    machine.send(.coin, at: MachineInstant(nanoseconds: 1))
    machine.send(.push, at: MachineInstant(nanoseconds: 2))
    machine.advance(to: MachineInstant(nanoseconds: 10_000_000_000))
    _ = machine.can(.coin)
    var drained: Int32 = 0
    trace.drain { _ in drained += 1 }

    let pending = PendingFlag()
    let shared = SharedMachine<GateState, GateEvent, GateContext, RuntimeObservers<GateState, GateEvent>, SpinLock, TickClock>(
        StateMachine(table: table, context: GateContext()), clock: TickClock(), wakeUp: pending)
    shared.start()
    shared.send(.coin)
    _ = shared.trySend(.push)
    shared.fireDueTimers()
    let diagrams = table.dot().utf8.count + table.mermaid().utf8.count
    let woken: Int32 = pending.raised.load(ordering: .acquiring) ? 1 : 0
    return drained + Int32(machine.context.coins) + (diagrams > 0 ? 1 : 0) + woken
}

// The same gate with superstates, three levels, as a nested machine: the fire alarm and the
// fault answered once by `inService`, history bringing the gate back where it was.
enum NestedState: Int, MachineSymbol {
    case inService, closed, open, paid, free, alarm, back
    var name: String {
        switch self {
        case .inService: "inService"
        case .closed: "closed"
        case .open: "open"
        case .paid: "paid"
        case .free: "free"
        case .alarm: "alarm"
        case .back: "back"
        }
    }
}

enum NestedEvent: Int, MachineSymbol {
    case coin, push, fire, clear, freePass
    var name: String {
        switch self {
        case .coin: "coin"
        case .push: "push"
        case .fire: "fire"
        case .clear: "clear"
        case .freePass: "freePass"
        }
    }
}

func nestedDefinition() -> MachineDefinition<NestedState, NestedEvent, GateContext> {
    var definition = MachineDefinition<NestedState, NestedEvent, GateContext>(initial: .inService)
    definition.state(.inService) { s in
        s.initial(.open, when: Guard("credit left") { $0.credit > 0 })
        s.initial(.closed)
        s.on(.fire, to: .alarm)
    }
    definition.state(.closed, in: .inService) { s in
        s.onEntry { c, _ in c.relayReleased = false }
        s.on(.coin, to: .paid) { c, _ in c.coins += 1; c.credit += 1 }
        s.on(.freePass, to: .free)
    }
    definition.state(.open, in: .inService) { s in
        s.initial(.paid)
        s.onEntry { c, _ in c.relayReleased = true }
        s.on(.push, to: .closed) { c, _ in c.credit -= 1 }
    }
    definition.state(.paid, in: .open) { s in s.on(.coin) { c, _ in c.coins += 1; c.credit += 1 } }
    definition.state(.free, in: .open) { _ in }
    definition.history(.back, of: .inService, deep: true, default: .closed)
    definition.state(.alarm) { s in
        s.onEntry { c, _ in c.relayReleased = true }
        s.on(.clear, to: .back)
    }
    return definition
}

@_cdecl("nested_gate_demo")
public func nestedGateDemo() -> Int32 {
    let table: TransitionTable<NestedState, NestedEvent, GateContext>
    do {
        table = try nestedDefinition().compile()
    } catch {
        return -1
    }
    var machine = StateMachine(table: table, context: GateContext(), queueCapacity: 4)
    machine.start()
    machine.send(.coin, at: MachineInstant(nanoseconds: 1))
    machine.send(.fire, at: MachineInstant(nanoseconds: 2))
    machine.send(.clear, at: MachineInstant(nanoseconds: 3))
    let restored: Int32 = machine.state == .paid ? 1 : 0
    machine.send(.push, at: MachineInstant(nanoseconds: 4))
    return restored + Int32(machine.context.coins) + (table.configuration(of: .paid).count == 3 ? 1 : 0)
}
