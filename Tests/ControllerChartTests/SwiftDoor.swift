import ControllerFSM
import ControllerHost

/// Examples/Charts/door/door.scxml and door.toml written as a Swift controller, row for row:
/// what the chart controller's outputs, counters and states are compared with.
enum SwiftDoor: ControllerApplication {
    enum State: Int, MachineSymbol { case service, closed, opening, open, closing, fireOpen, fireOpening, fireHeld }
    enum Event: Int, MachineSymbol { case open, blocked, clear, fire, fireOver, travelled, held }
    enum Timer: Int, MachineTimer { case travel, hold }
    struct Context: Sendable {
        var openings = 0
        var obstacle = false
        var settings: Settings
    }
    struct Settings: Hashable, Sendable {
        var travel = Duration.seconds(2)
        var hold = Duration.seconds(5)
    }

    static let name = "door"
    static let table: TransitionTable<State, Event, Context> = {
        var door = MachineDefinition<State, Event, Context>(initial: .service)
        door.state(.service) { s in
            s.initial(.closed)
            s.on(.fire, to: .fireOpen, kind: .external)
        }
        door.state(.closed, in: .service) { s in s.on(.open, to: .opening, kind: .external) }
        door.state(.opening, in: .service) { s in
            s.onEntry { c, fx in
                c.openings += 1
                fx.startTimer(Timer.travel, after: c.settings.travel, sending: .travelled)
            }
            s.onExit { _, fx in fx.cancelTimer(Timer.travel) }
            s.on(.travelled, to: .open, kind: .external)
        }
        door.state(.open, in: .service) { s in
            s.onEntry { c, fx in fx.startTimer(Timer.hold, after: c.settings.hold, sending: .held) }
            s.onExit { _, fx in fx.cancelTimer(Timer.hold) }
            s.on(.held, when: Guard("obstacle == 1") { $0.obstacle }, to: .open, kind: .external)
            s.on(.held, to: .closing, kind: .external)
            s.on(.open, to: .open, kind: .external)
        }
        door.state(.closing, in: .service) { s in
            s.onEntry { c, fx in fx.startTimer(Timer.travel, after: c.settings.travel, sending: .travelled) }
            s.onExit { _, fx in fx.cancelTimer(Timer.travel) }
            s.on(.travelled, to: .closed, kind: .external)
            s.on(.blocked, to: .opening, kind: .external)
            s.on(.open, to: .opening, kind: .external)
        }
        door.state(.fireOpen) { s in
            s.initial(.fireOpening)
            s.on(.fireOver, to: .service, kind: .external)
        }
        door.state(.fireOpening, in: .fireOpen) { s in
            s.onEntry { c, fx in fx.startTimer(Timer.travel, after: c.settings.travel, sending: .travelled) }
            s.onExit { _, fx in fx.cancelTimer(Timer.travel) }
            s.on(.travelled, to: .fireHeld, kind: .external)
        }
        door.state(.fireHeld, in: .fireOpen) { _ in }
        do { return try door.compile() } catch { fatalError("\(error)") }
    }()

    static let settings = SettingsDeclaration<Self>(section: "door", defaults: Settings(), keys: [
        .duration("travel", \.travel), .duration("hold", \.hold),
    ])
    static func makeContext(_ settings: Settings) -> Context { Context(settings: settings) }
    static func apply(_ settings: Settings, to context: inout Context) { context.settings = settings }

    static let inputs: [InputDeclaration<Self>] = [
        .pulse("button", sends: .open, required: true, simulatedPulse: .milliseconds(100)),
        .level("obstacle", on: .blocked, off: .clear) { $0.obstacle = $1 },
        .condition("fire", on: .fire, off: .fireOver),
    ]
    static let outputs: [OutputDeclaration<Self>] = [
        OutputDeclaration("motor_open", required: true, initial: false) { state, _ in state == .opening || state == .fireOpening },
        OutputDeclaration("motor_close", required: true, initial: false,
                          requires: OutputPrecondition("obstacle == 0") { _, c in !c.obstacle }) { state, _ in state == .closing },
    ]
    static let counters: [CounterDeclaration<Self>] = [CounterDeclaration("openings") { $0.openings }]
    static let stateCounts: [StateCount<Self>] = [.entering(.fireOpen, counts: "fireAlarms")]
    static let commands: [DirectCommand<Self>] = [DirectCommand(.open), DirectCommand(.fire), DirectCommand(.fireOver)]
    static let invariants: [Invariant<Self>] = [
        Invariant("the motors never run together") { state, _ in !((state == .opening || state == .fireOpening) && state == .closing) },
    ]
}
