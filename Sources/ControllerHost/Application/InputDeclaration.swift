import ControllerFSM

/// An input role and how its line becomes events.
public struct InputDeclaration<App: ControllerApplication>: Sendable {
    /// The role's name: its key under `[inputs]` in a board file and its word in scenarios.
    public let role: RoleName
    /// Whether every board must wire it.
    public let isRequired: Bool
    public let binding: InputBinding<App>
    /// An active level held past a time: an event of its own (the turnstile's jam).
    public let heldTooLong: HeldTooLong<App>?
    /// How long the simulator holds the line active for one pulse: the default of the board's
    /// `[sim] <role>_pulse`. `nil` for a level.
    public let simulatedPulse: Duration?
    /// One line for `--help`, board-file messages and the README.
    public let summary: String

    /// A pulse: its active edge sends `event`; its inactive edge only ends the pulse.
    public static func pulse(
        _ role: RoleName, sends event: App.Event, required: Bool = false, simulatedPulse: Duration,
        heldTooLong: HeldTooLong<App>? = nil, summary: String = ""
    ) -> Self {
        Self(role: role, isRequired: required, binding: .pulse(event), heldTooLong: heldTooLong,
             simulatedPulse: simulatedPulse, summary: summary)
    }

    /// A level: its active edge sends `on`, its inactive edge `off`. With `keeping`, the host
    /// writes the level into the context before the event in every state (`{ $0.vehicleOnLoop
    /// = $1 }`), and the event is handled even where the table does not answer it (never
    /// counted as ignored). The level is read when the controller starts (into the context; no
    /// event).
    public static func level(
        _ role: RoleName, on: App.Event, off: App.Event, required: Bool = false, summary: String = "",
        keeping level: (@Sendable (inout App.Context, Bool) -> Void)? = nil
    ) -> Self {
        Self(role: role, isRequired: required, binding: .level(on: on, off: off, keeping: level),
             heldTooLong: nil, simulatedPulse: nil, summary: summary)
    }

    /// A condition the line and direct commands both assert (a fire alarm): on while either
    /// holds it. A command may add to what the line says, never undo it. `on` is sent when the
    /// condition begins, `off` when it ends; a line found active at start-up begins it.
    public static func condition(
        _ role: RoleName, on: App.Event, off: App.Event, required: Bool = false, summary: String = ""
    ) -> Self {
        Self(role: role, isRequired: required, binding: .condition(on: on, off: off), heldTooLong: nil,
             simulatedPulse: nil, summary: summary)
    }
}

/// How an input line becomes events.
public enum InputBinding<App: ControllerApplication>: Sendable {
    case pulse(App.Event)
    /// `keeping` writes the level into the context (a closure, not a key path: it runs on the
    /// event path, and applying a key path allocates).
    case level(on: App.Event, off: App.Event, keeping: (@Sendable (inout App.Context, Bool) -> Void)?)
    case condition(on: App.Event, off: App.Event)

    /// Whether the line is a level (a scenario sets it on and off) rather than a pulse.
    public var isLevel: Bool {
        if case .pulse = self { return false }
        return true
    }
}

/// An active level held longer than a setting: the line's sensor is stuck (the turnstile's push
/// held past the jam timeout is a `fault`). While the line stays held, `event` is sent again
/// whenever the machine settles in a state where `again` holds (a jam ignored during an
/// emergency is raised again when the turnstile comes back into service).
public struct HeldTooLong<App: ControllerApplication>: Sendable {
    public let limit: SendableKeyPath<App.Settings, Duration>
    public let event: App.Event
    public let again: @Sendable (App.State) -> Bool

    public init(after limit: KeyPath<App.Settings, Duration>, sends event: App.Event,
                againWhen again: @escaping @Sendable (App.State) -> Bool = { _ in false }) {
        self.limit = SendableKeyPath(limit)
        self.event = event
        self.again = again
    }
}

/// A key path the declarations keep in their static lets. Key paths to stored properties are
/// immutable values; the standard library does not mark them `Sendable` for every root.
public struct SendableKeyPath<Root, Value>: @unchecked Sendable {
    public let keyPath: KeyPath<Root, Value>

    public init(_ keyPath: KeyPath<Root, Value>) { self.keyPath = keyPath }
}

/// A writable key path kept in a declaration (see ``SendableKeyPath``).
public struct SendableWritableKeyPath<Root, Value>: @unchecked Sendable {
    public let keyPath: WritableKeyPath<Root, Value>

    public init(_ keyPath: WritableKeyPath<Root, Value>) { self.keyPath = keyPath }
}
