import ControllerFSM

/// An output role: the level the machine wants on it, how it starts and stops, and what a failed
/// write to it means.
public struct OutputDeclaration<App: ControllerApplication>: Sendable {
    /// The role's name: its key under `[outputs]` in a board file.
    public let role: RoleName
    /// Whether every board must wire it.
    public let isRequired: Bool
    /// The level requested with the line, before the machine starts: the safe one.
    public let initialLevel: Bool
    /// The level the machine wants, from its state (or its whole configuration) and context
    /// (logical: 1 is asserted).
    public let level: MachineCondition<App>
    /// A pulse on top of ``level``: the output is also on for a set time after an action asks.
    public let pulse: OutputPulse<App>?
    /// The level driven when the controller stops, from the settings in force; `nil` leaves the
    /// line at the level it has.
    public let stopLevel: (@Sendable (App.Settings) -> Bool)?
    /// Sent to the machine when a write to this line fails (the turnstile's lock: `fault`).
    /// The host sends it once per failed write, never from within its own handling.
    public let writeFailure: App.Event?
    /// The outputs that name the same interlock are never on together (a barrier's two
    /// motors): within one step the host writes each of them that turns off before any output
    /// turns on (break before make), and turns one on only while every other one of its
    /// interlock is written off — if that write failed, the one wanting on stays off.
    /// Outputs outside any interlock are written in declaration order. An interlock yields only
    /// where an ``InterlockDeclaration`` of the application says so; whenever it holds an output
    /// off that the machine asks on, the host says so (``ControllerCore/outputOverrides``).
    public let interlock: String?
    /// One line for `--help`, board-file messages and the documentation.
    public let summary: String
    /// What each level means to a person watching the trace (`lock = 1  (arm held)`).
    public let meaning: OutputMeaning?
    /// What the world must be for the output to be on (green: the arm is up), checked as an
    /// invariant wherever invariants are (see ``OutputPrecondition``); nil when it assumes nothing.
    public let precondition: OutputPrecondition<App>?

    /// An output whose level follows the innermost state (the first region's) and the context:
    /// `OutputDeclaration("lock", initial: true) { state, _ in state != .unlocked }`.
    public init(
        _ role: RoleName, required: Bool = false, initial: Bool, pulse: OutputPulse<App>? = nil,
        stop: (@Sendable (App.Settings) -> Bool)? = nil, onWriteFailure: App.Event? = nil, interlock: String? = nil,
        summary: String = "", meaning: OutputMeaning? = nil, requires precondition: OutputPrecondition<App>? = nil,
        level: @escaping @Sendable (App.State, App.Context) -> Bool
    ) {
        self.init(
            role, required: required, initial: initial, pulse: pulse, stop: stop, onWriteFailure: onWriteFailure,
            interlock: interlock, summary: summary, meaning: meaning, requires: precondition, condition: MachineCondition(level))
    }

    /// An output whose level follows every active state, of every region, and the context:
    /// `OutputDeclaration("lamp", initial: false) { active, _ in active.isActive(.flashLit) }`.
    @_disfavoredOverload
    public init(
        _ role: RoleName, required: Bool = false, initial: Bool, pulse: OutputPulse<App>? = nil,
        stop: (@Sendable (App.Settings) -> Bool)? = nil, onWriteFailure: App.Event? = nil, interlock: String? = nil,
        summary: String = "", meaning: OutputMeaning? = nil, requires precondition: OutputPrecondition<App>? = nil,
        level: @escaping @Sendable (ActiveConfiguration<App.State>, App.Context) -> Bool
    ) {
        self.init(
            role, required: required, initial: initial, pulse: pulse, stop: stop, onWriteFailure: onWriteFailure,
            interlock: interlock, summary: summary, meaning: meaning, requires: precondition, condition: MachineCondition(level))
    }

    init(
        _ role: RoleName, required: Bool, initial: Bool, pulse: OutputPulse<App>?, stop: (@Sendable (App.Settings) -> Bool)?,
        onWriteFailure: App.Event?, interlock: String?, summary: String, meaning: OutputMeaning?,
        requires precondition: OutputPrecondition<App>?, condition: MachineCondition<App>
    ) {
        self.meaning = meaning
        self.precondition = precondition
        self.role = role
        isRequired = required
        initialLevel = initial
        level = condition
        self.pulse = pulse
        stopLevel = stop
        writeFailure = onWriteFailure
        self.interlock = interlock
        self.summary = summary
    }
}

/// An output pulse: an action leaves a request in the context; after each step the host takes
/// it (`takeRequest` says whether there was one and clears it) and holds the output on for
/// `length` (a setting), whatever the machine does meanwhile.
public struct OutputPulse<App: ControllerApplication>: Sendable {
    /// A closure, not a key path: it runs after every step, and applying a key path allocates.
    public let takeRequest: @Sendable (inout App.Context) -> Bool
    public let length: SendableKeyPath<App.Settings, Duration>

    public init(length: KeyPath<App.Settings, Duration>, takeRequest: @escaping @Sendable (inout App.Context) -> Bool) {
        self.takeRequest = takeRequest
        self.length = SendableKeyPath(length)
    }
}

/// What an output's two levels mean, in a few words each: the readable trace prints them beside
/// each change.
public struct OutputMeaning: Sendable, Hashable {
    public let on: String
    public let off: String

    public init(on: String, off: String) {
        self.on = on
        self.off = off
    }

    /// The words for `level`.
    public func callsLevel(_ level: Bool) -> String { level ? on : off }
}
