import ControllerFSM
import ControllerHost

/// A hatch with a motor, declared in the tests to show `explore()` is the runtime's and reads any
/// declaration: a start button (a pulse), a guard switch the host keeps in the context (a
/// level), a stop contact (a condition, also declared by command), a timer, and an invariant
/// the machine breaks on purpose (it has no row that stops the motor when the guard opens).
package enum Hatch: ControllerApplication {
    package enum State: Int, MachineSymbol { case idle, running, stopped }
    package enum Event: Int, MachineSymbol { case start, guardOpened, guardClosed, stopOn, stopOff, timeout }
    package enum Timer: Int, MachineTimer { case run }

    package struct Context: Sendable {
        package var guardOpen = false
        package var runs = 0
        package var timeouts = 0
    }

    package struct Settings: Hashable, Sendable {
        package var runFor: Duration = .seconds(2)
    }

    package static let name = "hatch"
    package static let table: TransitionTable<State, Event, Context> = {
        var definition = MachineDefinition<State, Event, Context>(initial: .idle)
        definition.state(.idle) { s in
            s.on(.start, to: .running) { c, _ in c.runs += 1 }
            s.on(.stopOn, to: .stopped)
        }
        definition.state(.running) { s in
            s.onEntry { _, fx in fx.startTimer(Timer.run, afterNanoseconds: 2_000_000_000, sending: .timeout) }
            s.onExit { _, fx in fx.cancelTimer(Timer.run) }
            s.on(.timeout, to: .idle) { c, _ in c.timeouts += 1 }
            s.on(.stopOn, to: .stopped)
        }
        definition.state(.stopped) { s in
            s.on(.stopOff, to: .idle)
        }
        do {
            return try definition.compile()
        } catch {
            fatalError("the hatch's table: \(error)")
        }
    }()

    package static let settings = SettingsDeclaration<Self>(section: "hatch", defaults: Settings(), keys: [
        .duration("run_for", \.runFor, summary: "how long the motor runs"),
    ])
    package static func makeContext(_: Settings) -> Context { Context() }
    package static func apply(_: Settings, to _: inout Context) {}

    package static let inputs: [InputDeclaration<Self>] = [
        .pulse("start", sends: .start, required: true, simulatedPulse: .milliseconds(100)),
        .level("guard", on: .guardOpened, off: .guardClosed) { $0.guardOpen = $1 },
        .condition("stop", on: .stopOn, off: .stopOff),
    ]
    package static let outputs: [OutputDeclaration<Self>] = [
        OutputDeclaration("motor", required: true, initial: false) { state, _ in state == .running },
    ]
    package static let counters: [CounterDeclaration<Self>] = [CounterDeclaration("runs") { $0.runs }]
    package static let commands: [DirectCommand<Self>] = [DirectCommand(.stopOn), DirectCommand(.stopOff)]
    package static let invariants: [Invariant<Self>] = [
        Invariant("the motor never runs with the guard open") { state, c in !(state == .running && c.guardOpen) },
    ]
}
