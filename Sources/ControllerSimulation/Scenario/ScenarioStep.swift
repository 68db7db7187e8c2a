import ControllerHost
import Turnstile
/// One line of a scenario: what happens, and when in virtual time.
public struct ScenarioStep: Hashable, Sendable {
    /// Virtual time since the start of the run.
    public var time: Duration
    /// The 1-based line in the scenario file, for reporting a failed `expect`.
    public var line: Int
    /// What happens at `time`.
    public var action: ScenarioAction

    public init(time: Duration, line: Int, action: ScenarioAction) {
        self.time = time
        self.line = line
        self.action = action
    }
}

/// What a scenario step does. Inputs are driven as physical pulses on their lines, with the
/// board's contact bounce, never as direct events — except commands (`fault`, `event NAME`),
/// which reach the controller as `turnstiled ctl` does.
public enum ScenarioAction: Hashable, Sendable {
    /// `coin`: a coin pulse on the coin line.
    case coin
    /// `push`: one passage, a pulse on the push line.
    case push
    /// `push hold S`: the push line held active for S seconds (jam detection).
    case pushHold(Duration)
    /// `repair`: a pulse on the service line.
    case repair
    /// `emergency on|off`: the emergency line becomes active or inactive.
    case emergency(on: Bool)
    /// `fault` (the mechanism reports a failure) or `event NAME`: a direct command, as `turnstiled
    /// ctl` sends it — `fault`, `repair`, `emergencyOn`, `emergencyOff`. An emergency command
    /// adds to the emergency line, never undoes it.
    case command(TurnstileEvent)
    /// `set KEY SECONDS`: a `[turnstile]` timing changes from here on, as a reload (SIGHUP)
    /// changes it in the daemon; a recording writes one for each timing at its start and for
    /// each one a reload changed.
    case set(BoardFile.TurnstileSettings.Timing, Duration)
    /// `unreplayable REASON`: written by the flight recorder where the live run met what no
    /// replay can reproduce (a failed output write); `simulate` and `check` refuse the scenario
    /// naming the line, instead of replaying to another end and exiting 0.
    case unreplayable(String)
    /// `expect state NAME`.
    case expectState(String)
    /// `expect counter NAME VALUE`.
    case expectCounter(String, Int)
    /// `expect credit N`.
    case expectCredit(Int)
    /// `expect output NAME 0|1`: the output's logical value.
    case expectOutput(String, Bool)
    /// `end`: virtual time stops here.
    case end
}

extension ScenarioAction {
    /// `fault`: the mechanism reports a failure (a direct `fault` command).
    public static var fault: ScenarioAction { .command(.fault) }

    /// Whether the step only looks (`expect …`), checked against everything strictly before
    /// its time.
    package var isExpectation: Bool {
        switch self {
        case .expectState, .expectCounter, .expectCredit, .expectOutput: true
        case .coin, .push, .pushHold, .repair, .emergency, .command, .set, .unreplayable, .end: false
        }
    }
}
