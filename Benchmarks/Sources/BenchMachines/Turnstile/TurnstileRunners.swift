import CBaselines
import ControllerFSM
import Turnstile

// The turnstile's implementations as `StreamRunner`s. Each keeps its machine in a stored
// property and hands it `inout` to a loop function, so the loop works on it directly: one
// exclusivity check per run, not per event.

final class TurnstileCSwitchRunner: StreamRunner {
    private var machine = cturnstile()

    init() { cturnstile_init(&machine) }

    func run(first count: Int) {
        EventStreams.turnstile.rawValues.withUnsafeBufferPointer { events in
            cturnstile_run(&machine, events.baseAddress, count)
        }
    }

    var result: MachineResult { .turnstile(TurnstileSnapshot(machine)) }
}

extension TurnstileSnapshot {
    /// What a C baseline's turnstile data computed (the flat switch's, or the QHsm one's).
    init(_ m: cturnstile) {
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
        self.init(
            state: TurnstileState(rawValue: Int(m.state))!, credit: Int(m.credit),
            stateBeforeEmergency: TurnstileState(rawValue: Int(m.state_before_emergency))!,
            counters: counters, outputs: outputs, timerArmed: m.timer_armed
        )
    }
}

final class TurnstileSwiftSwitchRunner: StreamRunner {
    private var machine = TurnstileSwiftSwitch()

    func run(first count: Int) {
        EventStreams.turnstile.events.withUnsafeBufferPointer { events in
            Self.loop(&machine, UnsafeBufferPointer(rebasing: events.prefix(count)))
        }
    }

    @inline(never)
    private static func loop(_ machine: inout TurnstileSwiftSwitch, _ events: UnsafeBufferPointer<TurnstileEvent>) {
        for event in events { machine.send(event) }
    }

    var result: MachineResult { .turnstile(machine.snapshot) }
}

final class TurnstileClosureDictionaryRunner: StreamRunner {
    private let machine = TurnstileClosureDictionary()

    func run(first count: Int) {
        EventStreams.turnstile.events.withUnsafeBufferPointer { events in
            Self.loop(machine, UnsafeBufferPointer(rebasing: events.prefix(count)))
        }
    }

    @inline(never)
    private static func loop(_ machine: TurnstileClosureDictionary, _ events: UnsafeBufferPointer<TurnstileEvent>) {
        for event in events { machine.send(event) }
    }

    var result: MachineResult { .turnstile(machine.snapshot) }
}

final class TurnstileControllerFSMRunner: StreamRunner {
    private typealias Bare = BareMachine<FlatTurnstileState, TurnstileEvent, FlatTurnstileContext>
    // No observer at all: the bare runtime (the full one is `TurnstileFullRuntimeRunner`).
    private var machine = Bare(table: FlatTurnstileMachine.table, context: FlatTurnstileContext(), queueCapacity: TurnstileMachine.queueCapacity)

    init() { machine.start(at: MachineInstant(nanoseconds: 0)) }

    func run(first count: Int) {
        EventStreams.turnstile.events.withUnsafeBufferPointer { events in
            Self.loop(&machine, UnsafeBufferPointer(rebasing: events.prefix(count)))
        }
    }

    @inline(never)
    private static func loop(_ machine: inout Bare, _ events: UnsafeBufferPointer<TurnstileEvent>) {
        // One time for every event: timer expiries are `timeout` events in the stream.
        let time = MachineInstant(nanoseconds: 0)
        for event in events { machine.send(event, at: time) }
    }

    var result: MachineResult { .turnstile(TurnstileSnapshot(flat: machine)) }
}

final class TurnstileFullRuntimeRunner: StreamRunner {
    // Thread-safe send, inbox and a trace drained by a consumer: the trace is the machine's only
    // observer, chosen at compile time (`TraceObserver`).
    private typealias Shared = SharedMachine<
        FlatTurnstileState, TurnstileEvent, FlatTurnstileContext, TraceObserver<FlatTurnstileState, TurnstileEvent>, MutexLock, ManualClock>
    private let trace = TraceRing<FlatTurnstileState, TurnstileEvent>(capacity: 2 * traceDrainInterval)
    private let machine: Shared
    private var consumer = TraceConsumer()

    init() {
        machine = Shared(
            TracedMachine(table: FlatTurnstileMachine.table, context: FlatTurnstileContext(), queueCapacity: TurnstileMachine.queueCapacity, trace: trace),
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
        _ machine: Shared, _ trace: TraceRing<FlatTurnstileState, TurnstileEvent>,
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
        .turnstile(machine.withMachine { TurnstileSnapshot(flat: $0) })
    }

    var problems: [String] {
        consumer.drain(trace)
        return consumer.problems(trace: trace, dispatched: machine.statistics.dispatched)
    }
}

extension TurnstileSnapshot {
    init<Observer>(_ machine: ObservedMachine<TurnstileState, TurnstileEvent, TurnstileContext, Observer>) {
        var counters = machine.context.counters
        counters.ignored = machine.statistics.ignored
        self.init(
            state: machine.state, credit: machine.context.credit,
            stateBeforeEmergency: machine.context.stateBeforeEmergency,
            counters: counters, outputs: machine.context.outputs,
            timerArmed: machine.isRunning(TurnstileTimer.state)
        )
    }
}

extension TurnstileSnapshot {
    init<Observer>(flat machine: ObservedMachine<FlatTurnstileState, TurnstileEvent, FlatTurnstileContext, Observer>) {
        var counters = machine.context.counters
        counters.ignored = machine.statistics.ignored
        self.init(
            state: machine.state.turnstile, credit: machine.context.credit,
            stateBeforeEmergency: machine.context.stateBeforeEmergency.turnstile,
            counters: counters, outputs: machine.context.outputs,
            timerArmed: machine.isRunning(FlatTurnstileTimer.state)
        )
    }
}
