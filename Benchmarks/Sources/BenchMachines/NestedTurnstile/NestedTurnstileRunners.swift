import CBaselines
import ControllerFSM
import Turnstile

// The turnstile with superstates (`TurnstileMachine` itself) and its C baseline in QP/C's QHsm
// style, on the turnstile's stream. Their reference is the flat
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
    private typealias Bare = BareMachine<TurnstileState, TurnstileEvent, TurnstileContext>
    private var machine = Bare(table: TurnstileMachine.table, context: TurnstileContext(timings: TurnstileTimings()), queueCapacity: TurnstileMachine.queueCapacity)

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

    var result: MachineResult { .turnstile(TurnstileSnapshot(machine)) }
}

final class NestedTurnstileFullRuntimeRunner: StreamRunner {
    private typealias Shared = SharedMachine<
        TurnstileState, TurnstileEvent, TurnstileContext, TraceObserver<TurnstileState, TurnstileEvent>, MutexLock, ManualClock>
    private let trace = TraceRing<TurnstileState, TurnstileEvent>(capacity: 2 * traceDrainInterval)
    private let machine: Shared
    private var consumer = TraceConsumer()

    init() {
        machine = Shared(
            TracedMachine(table: TurnstileMachine.table, context: TurnstileContext(timings: TurnstileTimings()), queueCapacity: TurnstileMachine.queueCapacity, trace: trace),
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
        _ machine: Shared, _ trace: TraceRing<TurnstileState, TurnstileEvent>,
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
        .turnstile(machine.withMachine { TurnstileSnapshot($0) })
    }

    var problems: [String] {
        consumer.drain(trace)
        return consumer.problems(trace: trace, dispatched: machine.statistics.dispatched)
    }
}
