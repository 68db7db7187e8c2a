import ControllerFSM
import ControllerFSMSim
import ControllerHost

/// A second, tiny application for the host's generic rules: a shuttle on a track driven by two
/// motors that must never run together (`forward`, `backward`, one interlock), which reverses
/// when it reaches the track's end (`end`, a level) or when told (`swap`). Declared twice, in
/// both output orders, so a test can show the order the host writes in is its own rule, not
/// the declaration's.
package enum ShuttleState: Int, MachineSymbol { case forward, backward }
package enum ShuttleEvent: Int, MachineSymbol { case swap, arrived, left }

package struct ShuttleSettings: Hashable, Sendable {
    package init() {}
}

package protocol ShuttleApplication: ControllerApplication
where State == ShuttleState, Event == ShuttleEvent, Context == Int, Settings == ShuttleSettings {}

extension ShuttleApplication {
    package static var name: String { "shuttle" }
    package static var table: TransitionTable<ShuttleState, ShuttleEvent, Int> { shuttleTable }
    package static var settings: SettingsDeclaration<Self> { SettingsDeclaration(section: "shuttle", defaults: ShuttleSettings(), keys: []) }
    package static func makeContext(_: ShuttleSettings) -> Int { 0 }
    package static func apply(_: ShuttleSettings, to _: inout Int) {}
    package static var inputs: [InputDeclaration<Self>] { [.level("end", on: .arrived, off: .left, required: true)] }
    package static var counters: [CounterDeclaration<Self>] { [CounterDeclaration("reversals") { $0 }] }
    package static var commands: [DirectCommand<Self>] { [DirectCommand(.swap)] }

    package static func motor(_ role: RoleName, on state: ShuttleState, interlock: String?) -> OutputDeclaration<Self> {
        OutputDeclaration(role, required: true, initial: false, interlock: interlock) { current, _ in current == state }
    }

    /// Its board: `end` on line 0, the motors after it.
    package static func board(sim: String = "") throws -> Board<Self> {
        try Board<Self>.parse("""
            [board]
            name = "shuttle"
            backend = "sim"
            chip = "shuttle-sim"

            [inputs.end]
            line = "END"
            debounce = "10ms"

            [outputs.forward]
            line = "FORWARD"

            [outputs.backward]
            line = "BACKWARD"
            \(sim)
            """, file: "shuttle.toml")
    }
}

private let shuttleTable: TransitionTable<ShuttleState, ShuttleEvent, Int> = {
    var definition = MachineDefinition<ShuttleState, ShuttleEvent, Int>(initial: .forward)
    definition.state(.forward) { s in
        s.on(.swap, to: .backward) { c, _ in c += 1 }
        s.on(.arrived, to: .backward) { c, _ in c += 1 }
        s.on(.left)
    }
    definition.state(.backward) { s in
        s.on(.swap, to: .forward) { c, _ in c += 1 }
        s.on(.arrived, to: .forward) { c, _ in c += 1 }
        s.on(.left)
    }
    do {
        return try definition.compile()
    } catch {
        fatalError("the shuttle's table: \(error)")
    }
}()

/// Forward declared first, the motors interlocked.
package enum ShuttleForwardFirst: ShuttleApplication {
    package static let outputs = [motor("forward", on: .forward, interlock: "drive"), motor("backward", on: .backward, interlock: "drive")]
}

/// Backward declared first, the motors interlocked.
package enum ShuttleBackwardFirst: ShuttleApplication {
    package static let outputs = [motor("backward", on: .backward, interlock: "drive"), motor("forward", on: .forward, interlock: "drive")]
    package typealias Plant = ShuttleTrack<Self>
}

/// Backward declared first, no interlock: the host writes in declaration order.
package enum ShuttleUninterlocked: ShuttleApplication {
    package static let outputs = [motor("backward", on: .backward, interlock: nil), motor("forward", on: .forward, interlock: nil)]
}

/// The shuttle's track, as a plant: `forward` alone moves the shuttle towards the far end in
/// `track_time`, `backward` alone back; `end` is active exactly at the far end.
package struct ShuttleTrack<App: ShuttleApplication>: SimulatedPlant {
    package struct Settings: Hashable, Sendable {
        package var trackTime = Duration.seconds(1)
    }

    package static var settingKeys: [SectionKey<Settings>] { [.duration("track_time", \.trackTime)] }
    package static var defaultSettings: Settings { Settings() }
    package static var drivenInputs: [RoleName] { ["end"] }

    /// `track jammed` stops the shuttle where it is, whatever the motors do; `track clear` frees it.
    package enum Action: Hashable, Sendable { case jammed, clear }

    /// The words are read only for an application whose plant this is (`App.Plant` is then this
    /// type, so the casts hold); the track is generic over the shuttle's variants.
    package static var scenarioWords: [ScenarioWord<App>] {
        @Sendable func word(_ action: Action) -> ScenarioAction<App> { .plant(action as! App.Plant.Action) }
        return [ScenarioWord("track", usages: ["track jammed", "track clear"], read: { (reader: inout ScenarioWordReader) throws(ScenarioError) in
            try reader.expectArity(usage: ["track", "jammed|clear"])
            switch reader.arguments.first! {
            case "jammed": return word(.jammed)
            case "clear": return word(.clear)
            case let other: throw reader.error("\"\(other)\" is not jammed or clear", hint: "write \"track jammed\" or \"track clear\"")
            }
        }, writes: { action in
            guard case .plant(let action) = action, let action = action as? Action else { return nil }
            return action == .jammed ? "track jammed" : "track clear"
        })]
    }

    package let length: Int64
    package var position: Int64 = 0
    package var time: Int64
    package var forward = false
    package var backward = false
    package var jammed = false

    package init(settings: Settings, at start: MachineInstant) {
        length = settings.trackTime.nanosecondCount
        time = start.nanoseconds
    }

    private var motion: Int64 { jammed || forward == backward ? 0 : forward ? 1 : -1 }

    package mutating func output(_ role: RoleName, _ level: Bool, at instant: MachineInstant) {
        advance(to: instant)
        if role == "forward" { forward = level } else if role == "backward" { backward = level }
    }

    package mutating func perform(_ action: Action, at instant: MachineInstant) {
        advance(to: instant)
        jammed = action == .jammed
    }

    package var nextChange: MachineInstant? {
        switch motion {
        case 1 where position < length: MachineInstant(nanoseconds: time + length - position)
        default: nil
        }
    }

    package mutating func advance(to instant: MachineInstant) {
        let elapsed = max(instant.nanoseconds - time, 0)
        position = min(max(position + motion * elapsed, 0), length)
        time = max(time, instant.nanoseconds)
    }

    package func level(of role: RoleName) -> Bool { role == "end" && position == length }
}
