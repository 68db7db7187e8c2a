import ControllerHost
import ControllerSimulation
import Turnstile

// The turnstile's words for the generic simulation, for these tests: the application itself
// does not depend on the simulator.

/// The turnstile on the simulated chip.
package typealias TurnstileSimulation = Simulation<TurnstileApplication>

extension SimulationSummary where App == TurnstileApplication {
    /// The counters at the end, as the turnstile names them.
    package var counters: TurnstileCounters { TurnstileCounters(counterValues) }

    /// The credit at the end.
    package var credit: Int { gauges[0] }
}

extension ScenarioAction where App == TurnstileApplication {
    /// `coin`: a coin pulse on the coin line.
    package static var coin: Self { .pulse(.coin, width: nil) }
    /// `push`: one passage, a pulse on the push line.
    package static var push: Self { .pulse(.push, width: nil) }
    /// `push hold S`: the push line held active for S seconds (jam detection).
    package static func pushHold(_ hold: Duration) -> Self { .pulse(.push, width: hold) }
    /// `repair`: a pulse on the service line.
    package static var repair: Self { .pulse(.service, width: nil) }
    /// `emergency on|off`: the emergency line becomes active or inactive.
    package static func emergency(on: Bool) -> Self { .level(.emergency, on: on) }
    /// `fault`: the mechanism reports a failure (a direct `fault` command).
    package static var fault: Self { .command(.fault) }
    /// `expect credit N`.
    package static func expectCredit(_ credit: Int) -> Self { .expectGauge("credit", credit) }
    /// `set KEY SECONDS` by the turnstile's timing.
    package static func set(_ timing: TurnstileSettings.Timing, _ value: Duration) -> Self { .set(timing.rawValue, value) }
}

/// The turnstile's names as the design lists them; the parser itself knows none of them.
package let turnstileVocabulary = ScenarioVocabulary<TurnstileApplication>(
    states: ["locked", "unlocked", "broken", "outOfOrder", "emergency"],
    counters: ["coins", "passages", "forcedPushes", "expiredCredits", "faults", "coinsOutOfService", "repairs",
               "freePassages", "ignored"],
    outputs: ["lock", "alarm", "ready", "inhibit"])
