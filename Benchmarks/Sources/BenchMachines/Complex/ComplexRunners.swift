import CBaselines
import ControllerFSM

// The complex machine's implementations as `StreamRunner`s (see TurnstileRunners.swift).

final class ComplexCSwitchRunner: StreamRunner {
    private var machine = ccomplex()

    init() { ccomplex_init(&machine) }

    func run(first count: Int) {
        EventStreams.complex.rawValues.withUnsafeBufferPointer { events in
            ccomplex_run(&machine, events.baseAddress, count)
        }
    }

    var result: MachineResult {
        .complex(ComplexSnapshot(
            state: ComplexState(rawValue: Int(machine.state))!, counter: Int(machine.counter), ignored: Int(machine.ignored)))
    }
}

final class ComplexSwiftSwitchRunner: StreamRunner {
    private var machine = ComplexSwiftSwitch()

    func run(first count: Int) {
        EventStreams.complex.events.withUnsafeBufferPointer { events in
            Self.loop(&machine, UnsafeBufferPointer(rebasing: events.prefix(count)))
        }
    }

    @inline(never)
    private static func loop(_ machine: inout ComplexSwiftSwitch, _ events: UnsafeBufferPointer<ComplexEvent>) {
        for event in events { machine.send(event) }
    }

    var result: MachineResult {
        .complex(ComplexSnapshot(state: machine.state, counter: machine.counter, ignored: machine.ignored))
    }
}

final class ComplexClosureDictionaryRunner: StreamRunner {
    private let machine = ComplexClosureDictionary()

    func run(first count: Int) {
        EventStreams.complex.events.withUnsafeBufferPointer { events in
            Self.loop(machine.machine, UnsafeBufferPointer(rebasing: events.prefix(count)))
        }
    }

    @inline(never)
    private static func loop(
        _ machine: ClosureDictionaryMachine<ComplexState, ComplexEvent, ComplexContext>,
        _ events: UnsafeBufferPointer<ComplexEvent>
    ) {
        for event in events { machine.send(event) }
    }

    var result: MachineResult { .complex(machine.snapshot) }
}

final class ComplexControllerFSMRunner: StreamRunner {
    private typealias Bare = BareMachine<ComplexState, ComplexEvent, ComplexContext>
    // No observer at all: the bare runtime (the full one is `ComplexFullRuntimeRunner`).
    private var machine = Bare(table: ComplexMachine.table, context: ComplexContext())

    init() { machine.start(at: MachineInstant(nanoseconds: 0)) }

    func run(first count: Int) {
        EventStreams.complex.events.withUnsafeBufferPointer { events in
            Self.loop(&machine, UnsafeBufferPointer(rebasing: events.prefix(count)))
        }
    }

    @inline(never)
    private static func loop(_ machine: inout Bare, _ events: UnsafeBufferPointer<ComplexEvent>) {
        let time = MachineInstant(nanoseconds: 0)
        for event in events { machine.send(event, at: time) }
    }

    var result: MachineResult { .complex(ComplexSnapshot(machine)) }
}

final class ComplexFullRuntimeRunner: StreamRunner {
    // As `TurnstileFullRuntimeRunner`: the trace is the only observer, chosen at compile time.
    private typealias Shared = SharedMachine<
        ComplexState, ComplexEvent, ComplexContext, TraceObserver<ComplexState, ComplexEvent>, MutexLock, ManualClock>
    private let trace = TraceRing<ComplexState, ComplexEvent>(capacity: 2 * traceDrainInterval)
    private let machine: Shared
    private var consumer = TraceConsumer()

    init() {
        machine = Shared(TracedMachine(table: ComplexMachine.table, context: ComplexContext(), trace: trace), clock: ManualClock())
        machine.start()
    }

    func run(first count: Int) {
        EventStreams.complex.events.withUnsafeBufferPointer { events in
            Self.loop(machine, trace, &consumer, UnsafeBufferPointer(rebasing: events.prefix(count)))
        }
    }

    @inline(never)
    private static func loop(
        _ machine: Shared, _ trace: TraceRing<ComplexState, ComplexEvent>,
        _ consumer: inout TraceConsumer, _ events: UnsafeBufferPointer<ComplexEvent>
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

    var result: MachineResult { .complex(machine.withMachine { ComplexSnapshot($0) }) }

    var problems: [String] {
        consumer.drain(trace)
        return consumer.problems(trace: trace, dispatched: machine.statistics.dispatched)
    }
}

extension ComplexSnapshot {
    init<Observer>(_ machine: ObservedMachine<ComplexState, ComplexEvent, ComplexContext, Observer>) {
        self.init(state: machine.state, counter: machine.context.counter, ignored: machine.statistics.ignored)
    }
}
