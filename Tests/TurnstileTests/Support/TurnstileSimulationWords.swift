import ControllerHost
import ControllerSimulation
import Turnstile

// The turnstile's words for the generic simulation, for these tests: the application itself
// does not depend on the simulator.

/// The turnstile on the simulated chip.
typealias TurnstileSimulation = Simulation<TurnstileApplication>

extension SimulationSummary where App == TurnstileApplication {
    /// The counters at the end, as the turnstile names them.
    var counters: TurnstileCounters { TurnstileCounters(counterValues) }

    /// The credit at the end.
    var credit: Int { gauges[0] }
}

extension ScenarioAction where App == TurnstileApplication {
    /// `coin`: a coin pulse on the coin line.
    static var coin: Self { .pulse(.coin, width: nil) }
    /// `push`: one passage, a pulse on the push line.
    static var push: Self { .pulse(.push, width: nil) }
    /// `push hold S`: the push line held active for S seconds (jam detection).
    static func pushHold(_ hold: Duration) -> Self { .pulse(.push, width: hold) }
    /// `repair`: a pulse on the service line.
    static var repair: Self { .pulse(.service, width: nil) }
    /// `emergency on|off`: the emergency line becomes active or inactive.
    static func emergency(on: Bool) -> Self { .level(.emergency, on: on) }
    /// `fault`: the mechanism reports a failure (a direct `fault` command).
    static var fault: Self { .command(.fault) }
    /// `expect credit N`.
    static func expectCredit(_ credit: Int) -> Self { .expectGauge("credit", credit) }
    /// `set KEY SECONDS` by the turnstile's timing.
    static func set(_ timing: TurnstileSettings.Timing, _ value: Duration) -> Self { .set(timing.rawValue, value) }
}
