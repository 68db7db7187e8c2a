import ControllerFSM
import ControllerHost

/// A second application, declared here to show status, metrics and the page are the runtime's
/// and not the turnstile's: a pump that a switch starts and stops, two states, one counter and
/// one gauge, its daemon `pumpd`.
enum Pump: ControllerApplication {
    enum State: Int, MachineSymbol { case idle, pumping }
    enum Event: Int, MachineSymbol { case start, stop }

    struct Context: Sendable {
        var starts = 0
        var pressure = 0
    }

    struct Settings: Hashable, Sendable {}

    static let name = "pump"

    static let table: TransitionTable<State, Event, Context> = {
        var definition = MachineDefinition<State, Event, Context>(initial: .idle)
        definition.state(.idle) { s in
            s.on(.start, to: .pumping) { c, _ in c.starts += 1; c.pressure = 3 }
        }
        definition.state(.pumping) { s in
            s.on(.stop, to: .idle) { c, _ in c.pressure = 0 }
        }
        do {
            return try definition.compile()
        } catch {
            fatalError("the pump's table: \(error)")
        }
    }()

    static let settings = SettingsDeclaration<Self>(section: "pump", defaults: Settings(), keys: [])
    static func makeContext(_: Settings) -> Context { Context() }
    static func apply(_: Settings, to _: inout Context) {}

    static let inputs: [InputDeclaration<Self>] = [
        .pulse("switch", sends: .start, required: true, simulatedPulse: .milliseconds(100)),
    ]
    static let outputs: [OutputDeclaration<Self>] = [
        OutputDeclaration("motor", required: true, initial: false) { state, _ in state == .pumping },
    ]
    static let counters: [CounterDeclaration<Self>] = [
        CounterDeclaration("starts", summary: "times the pump started") { $0.starts },
    ]
    static let gauges: [GaugeDeclaration<Self>] = [
        GaugeDeclaration("pressure", summary: "pressure in the line, in bar") { $0.pressure },
    ]
}
