import ControllerFSM

/// One line of a scenario: what happens, and when in virtual time.
public struct ScenarioStep<App: ControllerApplication>: Hashable, Sendable {
    /// Virtual time since the start of the run.
    public var time: Duration
    /// The 1-based line in the scenario file, for reporting a failed `expect`.
    public var line: Int
    /// What happens at `time`.
    public var action: ScenarioAction<App>

    public init(time: Duration, line: Int, action: ScenarioAction<App>) {
        self.time = time
        self.line = line
        self.action = action
    }
}

/// What a scenario step does, in the generic verbs every application shares (an application's
/// own words, like the turnstile's `coin`, stand for one of these). Inputs are driven as
/// physical pulses and levels on their lines, with the board's contact bounce, never as direct
/// events — except commands (`event NAME`), which reach the controller as `ctl` does.
public enum ScenarioAction<App: ControllerApplication>: Hashable, Sendable {
    /// `pulse ROLE [SECONDS]` (the board's `[sim]` width when no time is given) and `hold ROLE
    /// SECONDS`: the role's line active for that long.
    case pulse(RoleName, width: Duration?)
    /// `set ROLE on|off`: a level input's line becomes active or inactive.
    case level(RoleName, on: Bool)
    /// `event NAME`: a direct command, as `ctl` sends it. A command that is a condition's
    /// event adds to the condition's line, never undoes it.
    case command(App.Event)
    /// `set KEY SECONDS`: a duration of the application's settings changes from here on, as a
    /// reload (SIGHUP) changes it in the daemon; a recording writes one for each key at its
    /// start and for each one a reload changed.
    case set(String, Duration)
    /// `unreplayable REASON`: written by the flight recorder where the live run met what no
    /// replay can reproduce (a failed output write); `simulate` and `check` refuse the scenario
    /// naming the line, instead of replaying to another end and exiting 0.
    case unreplayable(String)
    /// `inputs as taken`: from here on every input line changes cleanly (no contact bounce)
    /// exactly at its written time. A recording writes each input at the moment its line
    /// changed as the controller took it (the edge's time less its debounce), so its replay
    /// takes each one at the very instant the run did, in the same order relative to the
    /// commands around it.
    case inputsAsTaken
    /// One of the plant's own words (`arm stuck`): the simulator hands the action to the
    /// application's ``ControllerApplication/Plant`` at its time.
    case plant(App.Plant.Action)
    /// `expect state NAME`.
    case expectState(String)
    /// `expect counter NAME VALUE`.
    case expectCounter(String, Int)
    /// `expect GAUGE N` (the turnstile's `expect credit N`).
    case expectGauge(String, Int)
    /// `expect output NAME 0|1`: the output's logical value.
    case expectOutput(String, Bool)
    /// `end`: virtual time stops here.
    case end
}

extension ScenarioAction {
    /// Whether the step only looks (`expect …`), checked against everything strictly before
    /// its time.
    package var isExpectation: Bool {
        switch self {
        case .expectState, .expectCounter, .expectGauge, .expectOutput: true
        case .pulse, .level, .command, .set, .unreplayable, .inputsAsTaken, .plant, .end: false
        }
    }

    /// The input line the action drives, if any.
    package var drivenRole: RoleName? {
        switch self {
        case .pulse(let role, _), .level(let role, _): role
        default: nil
        }
    }
}
