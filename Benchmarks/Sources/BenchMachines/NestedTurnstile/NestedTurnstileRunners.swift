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

    var result: MachineResult { .turnstile(TurnstileSnapshot(machine.data)) }
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
