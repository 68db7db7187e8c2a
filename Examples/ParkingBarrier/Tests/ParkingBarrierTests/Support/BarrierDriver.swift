import ControllerFSM
import ControllerHost
import ParkingBarrier

/// The barrier's machine driven the way the generic host drives it: a level input's edge writes
/// its level into the context, in every state, before its event, and is handled even where the
/// table does not answer it (never counted as ignored); time moves (timers expire) before the
/// edge is taken. Pulses and commands are plain events. Outputs are read after every step.
struct BarrierDriver {
    /// The four level inputs the context keeps, bound as the declaration binds them.
    enum Level: CaseIterable, CustomStringConvertible {
        case loop, photocell, upLimit, downLimit

        var role: RoleName {
            switch self {
            case .loop: "loop"
            case .photocell: "photocell"
            case .upLimit: "up_limit"
            case .downLimit: "down_limit"
            }
        }

        /// Where the context keeps the level, for reading it.
        var keyPath: WritableKeyPath<BarrierContext, Bool> {
            switch self {
            case .loop: \.loop
            case .photocell: \.photocell
            case .upLimit: \.upLimit
            case .downLimit: \.downLimit
            }
        }

        /// The declaration's binding: the edges' events and how the host keeps the level.
        var binding: (on: BarrierEvent, off: BarrierEvent, keep: @Sendable (inout BarrierContext, Bool) -> Void) {
            guard let index = ParkingBarrier.inputIndex(named: role),
                  case .level(let on, let off, let keep?) = ParkingBarrier.inputs[index].binding
            else { fatalError("the declaration has no kept level input \(role)") }
            return (on, off, keep)
        }

        func event(_ active: Bool) -> BarrierEvent { active ? binding.on : binding.off }
        var description: String { role.rawValue }
    }

    /// The outputs' logical levels.
    struct Outputs: Equatable, CustomStringConvertible {
        var motorUp, motorDown, green, red, alarm: Bool

        /// The outputs as the declaration derives them from `state` and `context`.
        init(_ state: BarrierState, _ context: BarrierContext) {
            func level(_ role: RoleName) -> Bool {
                ParkingBarrier.outputLevel(ParkingBarrier.outputIndex(named: role)!, state: state, context: context)
            }
            self.init(motorUp: level("motor_up"), motorDown: level("motor_down"), green: level("green"), red: level("red"), alarm: level("alarm"))
        }

        init(motorUp: Bool, motorDown: Bool, green: Bool, red: Bool, alarm: Bool) {
            (self.motorUp, self.motorDown, self.green, self.red, self.alarm) = (motorUp, motorDown, green, red, alarm)
        }

        var description: String {
            [("motor_up", motorUp), ("motor_down", motorDown), ("green", green), ("red", red), ("alarm", alarm)]
                .map { "\($0.0) \($0.1 ? 1 : 0)" }.joined(separator: ", ")
        }
    }

    var machine: BarrierMachine.Machine
    /// Request pulses taken: `requests + refusedRequests` must equal it.
    private(set) var requestPulses = 0
    /// Level edges no row answered: the host's to handle, not ignored.
    private(set) var unansweredEdges = 0

    /// A started machine whose levels are read at start-up, as the host reads its lines.
    init(settings: BarrierSettings = BarrierSettings(), armDown: Bool = true, armUp: Bool = false,
         loop: Bool = false, photocell: Bool = false, at start: MachineInstant = .zero) {
        var context = ParkingBarrier.makeContext(settings)
        context.downLimit = armDown
        context.upLimit = armUp
        context.loop = loop
        context.photocell = photocell
        machine = BarrierMachine.Machine(table: ParkingBarrier.table, context: context, queueCapacity: ParkingBarrier.queueCapacity)
        machine.start(at: start)
    }

    var state: BarrierState { machine.state }
    var context: BarrierContext { machine.context }
    var counters: BarrierCounters { machine.context.counters }
    /// Pulses, commands and timeouts that no row answered.
    var ignored: Int { machine.statistics.ignored - unansweredEdges }
    var timerRunning: Bool { machine.isRunning(BarrierTimer.state) }
    /// The latest time the driver has brought the machine to.
    private(set) var lastTime = MachineInstant.zero

    /// The outputs as the declaration derives them from state and context.
    var outputs: Outputs { Outputs(machine.state, machine.context) }

    /// Every counter by its declared name, and `ignored`.
    var namedCounters: [String: Int] {
        var named = [ParkingBarrier.ignoredCounterName: ignored]
        for counter in ParkingBarrier.counters { named[counter.name] = counter.value(machine.context) }
        return named
    }

    /// A pulse or a direct command.
    @discardableResult
    mutating func send(_ event: BarrierEvent, at time: MachineInstant? = nil) -> DispatchOutcome {
        let time = time ?? lastTime
        advance(to: time)
        if event == .request { requestPulses += 1 }
        return machine.send(event, at: time)
    }

    /// A level input's edge; `nil` (nothing sent) when the line already has that level.
    @discardableResult
    mutating func set(_ level: Level, _ active: Bool, at time: MachineInstant? = nil) -> DispatchOutcome? {
        let time = time ?? lastTime
        advance(to: time)
        guard machine.context[keyPath: level.keyPath] != active else { return nil }
        level.binding.keep(&machine.context, active)
        let outcome = machine.send(level.event(active), at: time)
        if outcome == .ignored { unansweredEdges += 1 }
        return outcome
    }

    /// Time passes: timers due by `time` expire.
    mutating func advance(to time: MachineInstant) {
        machine.advance(to: time)
        lastTime = max(lastTime, time)
    }

    /// Time passes to the running timer's deadline, which expires; `false` when none runs.
    @discardableResult
    mutating func expireTimer() -> Bool {
        guard let deadline = machine.nextDeadline else { return false }
        advance(to: deadline)
        return true
    }
}
