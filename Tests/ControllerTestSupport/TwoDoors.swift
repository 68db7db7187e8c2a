import ControllerFSM
import ControllerHost

/// A third, small application for the host's rule that it never overrides the machine in
/// silence: a two-door security interlock (a mantrap). Each door's strike releases for a moment
/// when its button is pressed, never both at once; during a fire alarm (a condition input) every
/// door releases. Declared twice: with the strikes' interlock yielding to the fire alarm, and
/// without (the new user's first attempt, which the host and `explore()` must both call out).
package enum DoorsState: Int, MachineSymbol { case locked, doorAReleased, doorBReleased, fireAlarm }
package enum DoorsEvent: Int, MachineSymbol { case buttonA, buttonB, timeout, fireOn, fireOff }
package enum DoorsTimer: Int, MachineTimer { case release }

package struct DoorsSettings: Hashable, Sendable {
    package var release = Duration.seconds(5)
}

package struct DoorsContext: Sendable {
    package var releases = 0
    package var release: Int64
}

package protocol DoorsApplication: ControllerApplication
where State == DoorsState, Event == DoorsEvent, Context == DoorsContext, Settings == DoorsSettings {}

extension DoorsApplication {
    package static var name: String { "doors" }
    package static var table: TransitionTable<DoorsState, DoorsEvent, DoorsContext> { doorsTable }
    package static var settings: SettingsDeclaration<Self> {
        SettingsDeclaration(section: "doors", defaults: DoorsSettings(), keys: [.duration("release", \.release)])
    }
    package static func makeContext(_ settings: DoorsSettings) -> DoorsContext { DoorsContext(release: settings.release.nanosecondCount) }
    package static func apply(_ settings: DoorsSettings, to context: inout DoorsContext) { context.release = settings.release.nanosecondCount }
    package static var inputs: [InputDeclaration<Self>] {
        [
            .pulse("button_a", sends: .buttonA, required: true, simulatedPulse: .milliseconds(100)),
            .pulse("button_b", sends: .buttonB, required: true, simulatedPulse: .milliseconds(100)),
            .condition("fire", on: .fireOn, off: .fireOff),
        ]
    }
    package static var outputs: [OutputDeclaration<Self>] {
        [
            OutputDeclaration("strike_a", required: true, initial: false, interlock: "strikes") { state, _ in
                state == .doorAReleased || state == .fireAlarm
            },
            OutputDeclaration("strike_b", required: true, initial: false, interlock: "strikes") { state, _ in
                state == .doorBReleased || state == .fireAlarm
            },
        ]
    }
    package static var counters: [CounterDeclaration<Self>] { [CounterDeclaration("releases") { $0.releases }] }
    package static var commands: [DirectCommand<Self>] { [DirectCommand(.fireOn), DirectCommand(.fireOff)] }

    package static func board() throws -> Board<Self> {
        try Board<Self>.parse("""
            [board]
            name = "doors"
            backend = "sim"
            chip = "doors-sim"

            [inputs.button_a]
            line = "BUTTON_A"

            [inputs.button_b]
            line = "BUTTON_B"

            [inputs.fire]
            line = "FIRE"

            [outputs.strike_a]
            line = "STRIKE_A"

            [outputs.strike_b]
            line = "STRIKE_B"
            """, file: "doors.toml")
    }
}

private let doorsTable: TransitionTable<DoorsState, DoorsEvent, DoorsContext> = {
    var definition = MachineDefinition<DoorsState, DoorsEvent, DoorsContext>(initial: .locked)
    @Sendable func release(_ c: inout DoorsContext, _ fx: inout Effects<DoorsState, DoorsEvent>) {
        c.releases += 1
        fx.startTimer(DoorsTimer.release, afterNanoseconds: c.release, sending: .timeout)
    }
    definition.state(.locked) { s in
        s.on(.buttonA, to: .doorAReleased, release)
        s.on(.buttonB, to: .doorBReleased, release)
        s.on(.fireOn, to: .fireAlarm)
    }
    for door in [DoorsState.doorAReleased, .doorBReleased] {
        definition.state(door) { s in
            s.onExit { _, fx in fx.cancelTimer(DoorsTimer.release) }
            s.on(.timeout, to: .locked)
            s.on(.fireOn, to: .fireAlarm)
        }
    }
    definition.state(.fireAlarm) { s in
        s.on(.fireOff, to: .locked)
    }
    do {
        return try definition.compile()
    } catch {
        fatalError("the doors' table: \(error)")
    }
}()

/// The strikes' interlock yields to the fire alarm: both doors release in a fire.
package enum DoorsYieldingToFire: DoorsApplication {
    package static let interlocks = [InterlockDeclaration<Self>("strikes", yieldsTo: "a fire alarm") { state, _ in state == .fireAlarm }]
}

/// The strikes' interlock yields to nothing: in a fire, the host would keep one door locked.
package enum DoorsNeverYielding: DoorsApplication {}
