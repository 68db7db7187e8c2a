import ControllerFSM
import ControllerFSMSim
import ControllerHost

/// A second application, declared here to show the store is the runtime's and not the
/// turnstile's: a lamp whose button toggles it, which a surge blows until it is replaced. Two
/// counters, one state count, one durable balance, no gauge.
enum Lamp: ControllerApplication {
    enum State: Int, MachineSymbol { case dark, lit, blown }
    enum Event: Int, MachineSymbol { case press, surge, replace }

    struct Context: Sendable {
        var presses = 0
        var surges = 0
    }

    struct Settings: Hashable, Sendable {}

    static let name = "lamp"
    /// Not `name` + "d": every place that names the daemon must take this one (the store's
    /// messages, the unwritten-counts file, the lines' consumer, the store's thread).
    static let daemonName = "lamp-keeper"

    static let table: TransitionTable<State, Event, Context> = {
        var definition = MachineDefinition<State, Event, Context>(initial: .dark)
        definition.state(.dark) { s in
            s.on(.press, to: .lit) { c, _ in c.presses += 1 }
            s.on(.surge, to: .blown) { c, _ in c.surges += 1 }
        }
        definition.state(.lit) { s in
            s.on(.press, to: .dark) { c, _ in c.presses += 1 }
            s.on(.surge, to: .blown) { c, _ in c.surges += 1 }
        }
        definition.state(.blown) { s in
            s.on(.replace, to: .dark)
        }
        do {
            return try definition.compile()
        } catch {
            fatalError("the lamp's table: \(error)")
        }
    }()

    static let settings = SettingsDeclaration<Self>(section: "lamp", defaults: Settings(), keys: [])
    static func makeContext(_: Settings) -> Context { Context() }
    static func apply(_: Settings, to _: inout Context) {}

    static let inputs: [InputDeclaration<Self>] = [
        .pulse("button", sends: .press, required: true, simulatedPulse: .milliseconds(100)),
    ]
    static let outputs: [OutputDeclaration<Self>] = [
        OutputDeclaration("light", required: true, initial: false) { state, _ in state == .lit },
    ]
    static let counters: [CounterDeclaration<Self>] = [
        CounterDeclaration("presses") { $0.presses },
        CounterDeclaration("surges") { $0.surges },
    ]
    static let stateCounts: [StateCount<Self>] = [.entering(.blown, counts: "blowouts")]
    static let durableInvariants = [DurableInvariant("every surge blew the lamp", "surges", equals: ["blowouts"])]
    static let commands: [DirectCommand<Self>] = [DirectCommand(.surge), DirectCommand(.replace)]

    /// Its board: the button on line 0 (active low), the light on line 1.
    static let board: Board<Lamp> = {
        do {
            return try Board<Lamp>.parse("""
                [board]
                name = "lamp"
                backend = "sim"
                chip = "lamp-sim"

                [inputs.button]
                line = "BUTTON"
                active_low = true
                debounce = "10ms"

                [outputs.light]
                line = 1
                """, file: "lamp.toml")
        } catch {
            fatalError("the lamp's board: \(error)")
        }
    }()

    /// A simulated chip wired as `board` says.
    static func chip() -> SimChip {
        SimChip(label: "lamp-sim", lines: [SimLine("BUTTON", activeLow: true), SimLine(nil)], clock: ManualClock())
    }
}
