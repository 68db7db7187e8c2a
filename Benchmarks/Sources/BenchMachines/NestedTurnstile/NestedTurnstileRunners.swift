import CBaselines
import ControllerFSM
import Turnstile

// The nested turnstile's implementations, on the turnstile's stream. Their reference is the flat
// C switch (`TurnstileCSwitchRunner`): the same work, without superstates.

final class NestedTurnstileQHsmRunner: StreamRunner {
    private var machine = cqturnstile()

    init() { cqturnstile_init(&machine) }

    func run(first count: Int) {
        EventStreams.turnstile.rawValues.withUnsafeBufferPointer { events in
            cqturnstile_run(&machine, events.baseAddress, count)
        }
    }

    var result: MachineResult {
        let m = machine
        var counters = TurnstileCounters()
        counters.coins = Int(m.coins)
        counters.passages = Int(m.passages)
        counters.forcedPushes = Int(m.forced_pushes)
        counters.expiredCredits = Int(m.expired_credits)
        counters.faults = Int(m.faults)
        counters.coinsOutOfService = Int(m.coins_out_of_service)
        counters.repairs = Int(m.repairs)
        counters.freePassages = Int(m.free_passages)
        counters.ignored = Int(m.ignored)
        var outputs = TurnstileOutputs()
        outputs.lock = m.lock
        outputs.alarm = m.alarm
        outputs.ready = m.ready
        outputs.inhibit = m.inhibit
        outputs.alarmPulseRequested = m.alarm_pulse_requested
        return .turnstile(TurnstileSnapshot(
            state: TurnstileState(rawValue: Int(cqturnstile_state(&machine)))!, credit: Int(m.credit),
            stateBeforeEmergency: TurnstileState(rawValue: Int(m.state_before_emergency))!,
            counters: counters, outputs: outputs, timerArmed: m.timer_armed
        ))
    }
}

final class NestedTurnstileControllerFSMRunner: StreamRunner {
    private typealias Bare = BareMachine<NestedTurnstileState, TurnstileEvent, NestedTurnstileContext>
    private var machine = Bare(table: NestedTurnstileMachine.table, context: NestedTurnstileContext(), queueCapacity: TurnstileMachine.queueCapacity)

    init() { machine.start(at: MachineInstant(nanoseconds: 0)) }

    func run(first count: Int) {
        EventStreams.turnstile.events.withUnsafeBufferPointer { events in
            Self.loop(&machine, UnsafeBufferPointer(rebasing: events.prefix(count)))
        }
    }

    @inline(never)
    private static func loop(_ machine: inout Bare, _ events: UnsafeBufferPointer<TurnstileEvent>) {
        let time = MachineInstant(nanoseconds: 0)
        for event in events { machine.send(event, at: time) }
    }

    var result: MachineResult { .turnstile(TurnstileSnapshot(nested: machine)) }
}

final class NestedTurnstileFullRuntimeRunner: StreamRunner {
    private typealias Shared = SharedMachine<
        NestedTurnstileState, TurnstileEvent, NestedTurnstileContext, TraceObserver<NestedTurnstileState, TurnstileEvent>, MutexLock, ManualClock>
    private let trace = TraceRing<NestedTurnstileState, TurnstileEvent>(capacity: 2 * traceDrainInterval)
    private let machine: Shared
    private var consumer = TraceConsumer()

    init() {
        machine = Shared(
            TracedMachine(table: NestedTurnstileMachine.table, context: NestedTurnstileContext(), queueCapacity: TurnstileMachine.queueCapacity, trace: trace),
            clock: ManualClock())
        machine.start()
    }

    func run(first count: Int) {
        EventStreams.turnstile.events.withUnsafeBufferPointer { events in
            Self.loop(machine, trace, &consumer, UnsafeBufferPointer(rebasing: events.prefix(count)))
        }
    }

    @inline(never)
    private static func loop(
        _ machine: Shared, _ trace: TraceRing<NestedTurnstileState, TurnstileEvent>,
        _ consumer: inout TraceConsumer, _ events: UnsafeBufferPointer<TurnstileEvent>
    ) {
        var sinceDrain = 0
        for event in events {
            machine.send(event)
            sinceDrain &+= 1
            if sinceDrain == traceDrainInterval {
                consumer.drain(trace)
                sinceDrain = 0
            }
        }
    }

    var result: MachineResult {
        .turnstile(machine.withMachine { TurnstileSnapshot(nested: $0) })
    }

    var problems: [String] {
        consumer.drain(trace)
        return consumer.problems(trace: trace, dispatched: machine.statistics.dispatched)
    }
}

extension TurnstileSnapshot {
    init<Observer>(nested machine: ObservedMachine<NestedTurnstileState, TurnstileEvent, NestedTurnstileContext, Observer>) {
        var counters = machine.context.counters
        counters.ignored = machine.statistics.ignored
        self.init(
            state: machine.state.flat, credit: machine.context.credit,
            stateBeforeEmergency: machine.context.stateBeforeEmergency,
            counters: counters, outputs: machine.context.outputs,
            timerArmed: machine.isRunning(NestedTurnstileTimer.state)
        )
    }
}
