import ControllerFSM
import ControllerHost

/// A second application, declared here to show the control protocol and the recorder are the
/// runtime's and not the turnstile's: a lane gate with a request button (a pulse), a lever whose
/// line held too long is a fault of its own (a held pulse), the loop under the lane (a level) and
/// a fire-alarm contact (a condition). No scenario words of its own: the generic verbs write it.
enum Gate: ControllerApplication {
    enum State: Int, MachineSymbol { case closed, open, faulted, emergency }
    enum Event: Int, MachineSymbol { case request, lever, stuck, vehicleIn, vehicleOut, fault, repair, alarmOn, alarmOff }
    enum Mode: String, CaseIterable, Sendable { case quick, careful }

    struct Context: Sendable {
        var settings: Settings
        var onLoop = false
    }

    struct Settings: Hashable, Sendable {
        var openFor: Duration = .seconds(5)
        var stuckAfter: Duration = .seconds(30)
        var mode: Mode = .quick
    }

    static let name = "gate"

    static let table: TransitionTable<State, Event, Context> = {
        var definition = MachineDefinition<State, Event, Context>(initial: .closed)
        definition.state(.closed) { s in
            s.on(.request, to: .open)
            s.on(.fault, to: .faulted)
            s.on(.stuck, to: .faulted)
            s.on(.alarmOn, to: .emergency)
        }
        definition.state(.open) { s in
            s.on(.vehicleOut, to: .closed)
            s.on(.fault, to: .faulted)
            s.on(.stuck, to: .faulted)
            s.on(.alarmOn, to: .emergency)
        }
        definition.state(.faulted) { s in
            s.on(.repair, to: .closed)
            s.on(.alarmOn, to: .emergency)
        }
        definition.state(.emergency) { s in
            s.on(.alarmOff, to: .closed)
        }
        do {
            return try definition.compile()
        } catch {
            fatalError("the gate's table: \(error)")
        }
    }()

    static let settings = SettingsDeclaration<Self>(section: "gate", defaults: Settings(), keys: [
        .duration("open_for", \.openFor, summary: "how long the gate stays open"),
        .duration("stuck_after", \.stuckAfter, summary: "how long the lever may be held"),
        .choice("mode", \.mode, summary: "how the gate closes"),
    ])
    static func makeContext(_ settings: Settings) -> Context { Context(settings: settings) }
    static func apply(_ settings: Settings, to context: inout Context) { context.settings = settings }

    static let inputs: [InputDeclaration<Self>] = [
        .pulse("request", sends: .request, required: true, simulatedPulse: .milliseconds(100),
               summary: "the request button: a pulse opens the gate"),
        .pulse("lever", sends: .lever, simulatedPulse: .milliseconds(200),
               heldTooLong: HeldTooLong(after: \.stuckAfter, sends: .stuck), summary: "the manual lever: held too long, it is stuck"),
        .level("loop", on: .vehicleIn, off: .vehicleOut, required: true,
               summary: "the loop under the lane: active while a vehicle is on it") { $0.onLoop = $1 },
        .condition("alarm", on: .alarmOn, off: .alarmOff, summary: "the fire-alarm contact: the gate opens while it is active"),
    ]
    static let outputs: [OutputDeclaration<Self>] = [
        OutputDeclaration("barrier", required: true, initial: true, onWriteFailure: .fault) { state, _ in state == .closed },
        OutputDeclaration("lamp", initial: false) { state, _ in state == .open },
    ]
    static let counters: [CounterDeclaration<Self>] = []
    static let commands: [DirectCommand<Self>] = [DirectCommand(.fault), DirectCommand(.repair), DirectCommand(.alarmOn), DirectCommand(.alarmOff)]

    /// Its board: every input and output wired on the simulated chip, 10 ms debounce on each
    /// input.
    static let board: Board<Gate> = {
        do {
            return try Board<Gate>.parse("""
                [board]
                name = "gate"
                backend = "sim"
                chip = "gate-sim"

                [inputs.request]
                line = 0
                debounce = "10ms"

                [inputs.lever]
                line = 1
                debounce = "10ms"

                [inputs.loop]
                line = 2
                debounce = "10ms"

                [inputs.alarm]
                line = 3
                debounce = "10ms"

                [outputs.barrier]
                line = 4

                [outputs.lamp]
                line = 5
                """, file: "gate.toml")
        } catch {
            fatalError("the gate's board: \(error)")
        }
    }()
}
