import ControllerFSM
import ControllerHost

/// A pump whose machine has a defect on purpose: told `spin`, it enters `looping`, whose entry
/// raises the event that re-enters it, so that step never settles. For the host's rule that a
/// machine past a bound of `MachineLimits` has its outputs held at their fail-safe levels and
/// its daemon degraded, naming the cycle. `pump` declares a stop level; `beacon` does not (its
/// safe initial level is where it is held). Told `flood` while pumping, it sends twenty events
/// at once, more than its queue holds: the rest are lost, and counted.
package enum Runaway: ControllerApplication {
    package enum State: Int, MachineSymbol { case idle, pumping, looping }
    package enum Event: Int, MachineSymbol { case start, stop, spin, again, flood }

    package struct Context: Sendable {
        package var starts = 0
        package var loops = 0
    }

    package struct Settings: Hashable, Sendable {}

    package static let name = "runaway"
    package static let table: TransitionTable<State, Event, Context> = {
        var definition = MachineDefinition<State, Event, Context>(initial: .idle)
        definition.state(.idle) { s in
            s.on(.start, to: .pumping) { c, _ in c.starts += 1 }
        }
        definition.state(.pumping) { s in
            s.on(.stop, to: .idle)
            s.on(.spin, to: .looping)
            s.on(.flood) { _, fx in for _ in 0..<20 { fx.send(.again) } }
        }
        definition.state(.looping) { s in
            s.onEntry { c, fx in
                c.loops += 1
                fx.send(.again)
            }
            s.on(.again, to: .looping)
            s.on(.stop, to: .idle)
        }
        do {
            return try definition.compile()
        } catch {
            fatalError("the runaway pump's table: \(error)")
        }
    }()

    package static let settings = SettingsDeclaration<Self>(section: "runaway", defaults: Settings(), keys: [])
    package static func makeContext(_: Settings) -> Context { Context() }
    package static func apply(_: Settings, to _: inout Context) {}

    package static let inputs: [InputDeclaration<Self>] = [.pulse("button", sends: .start, required: true, simulatedPulse: .milliseconds(100))]
    package static let outputs: [OutputDeclaration<Self>] = [
        OutputDeclaration("pump", required: true, initial: false, stop: { _ in false }) { state, _ in state != .idle },
        OutputDeclaration("beacon", required: true, initial: false) { state, _ in state == .pumping },
    ]
    package static let counters: [CounterDeclaration<Self>] = [CounterDeclaration("starts") { $0.starts }]
    package static let commands: [DirectCommand<Self>] = [DirectCommand(.start), DirectCommand(.stop), DirectCommand(.spin), DirectCommand(.flood)]

    /// Its board: `button` on line 0, the outputs after it.
    package static func board() throws -> Board<Self> {
        try Board<Self>.parse("""
            [board]
            name = "runaway"
            backend = "sim"
            chip = "runaway-sim"

            [inputs.button]
            line = "BUTTON"

            [outputs.pump]
            line = "PUMP"

            [outputs.beacon]
            line = "BEACON"
            """, file: "runaway.toml")
    }
}
