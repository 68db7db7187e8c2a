import ControllerFSM

/// An input role and how its line becomes events.
public struct InputDeclaration<App: ControllerApplication>: Sendable {
    /// The role's name: its key under `[inputs]` in a board file and its word in scenarios.
    public let role: RoleName
    /// Whether every board must wire it.
    public let isRequired: Bool
    public let binding: InputBinding<App>
    /// A level held past a time, on the side the declaration names: an event of its own (the
    /// turnstile's jam on a push held active; a door held open on `door_closed` inactive).
    public let heldTooLong: HeldTooLong<App>?
    /// How long the simulator holds the line active for one pulse: the default of the board's
    /// `[sim] <role>_pulse`. `nil` for a level.
    public let simulatedPulse: Duration?
    /// One line for `--help`, board-file messages and the documentation.
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
    /// `heldTooLong` sends its event when the line stays on one side (either: a door held open
    /// is `door_closed` held inactive) past its limit.
    public static func level(
        _ role: RoleName, on: App.Event, off: App.Event, required: Bool = false, summary: String = "",
        heldTooLong: HeldTooLong<App>? = nil,
        keeping level: (@Sendable (inout App.Context, Bool) -> Void)? = nil
    ) -> Self {
        Self(role: role, isRequired: required, binding: .level(on: on, off: off, keeping: level),
             heldTooLong: heldTooLong, simulatedPulse: nil, summary: summary)
    }

    /// A condition the line and direct commands both assert (a fire alarm): on while either
    /// holds it. A command may add to what the line says, never undo it. `on` is sent when the
    /// condition begins, `off` when it ends; a line found active at start-up begins it.
    public static func condition(
        _ role: RoleName, on: App.Event, off: App.Event, required: Bool = false, summary: String = "",
        heldTooLong: HeldTooLong<App>? = nil
    ) -> Self {
        Self(role: role, isRequired: required, binding: .condition(on: on, off: off), heldTooLong: heldTooLong,
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

    /// The event of the line's going on (`on`) or off: a pulse's event either way.
    @inlinable
    public func event(on: Bool) -> App.Event {
        switch self {
        case .pulse(let event): event
        case .level(let onEvent, let offEvent, _), .condition(let onEvent, let offEvent): on ? onEvent : offEvent
        }
    }
}

/// A line held on one side longer than a setting: the turnstile's push held active past the jam
/// timeout (its sensor is stuck: a `fault`), or a door held open — `door_closed` held inactive —
/// past its limit. The time counts from the edge onto that side (or the start, if the line is
/// there then); the edge off it ends the episode. While the line stays there, `event` is sent
/// again whenever the machine settles in a state where `again` holds (a jam ignored during an
/// emergency is raised again when the turnstile comes back into service).
public struct HeldTooLong<App: ControllerApplication>: Sendable {
    /// Which side of the line's level is held too long.
    public enum Side: Sendable, Equatable {
        /// The active level (a pulse's, or a level's `on`).
        case active
        /// The inactive level (a level's `off`: a door contact that reports the door open).
        case inactive
    }

    public let limit: SendableKeyPath<App.Settings, Duration>
    public let event: App.Event
    public let side: Side
    /// Where the machine must not stay while the line is still held: the event is sent again
    /// when it settles where this holds (read with a context the condition ignores).
    public let again: MachineCondition<App>

    /// Held too long, sent again whenever the machine settles in an innermost state (the first
    /// region's) where `again` holds.
    public init(after limit: KeyPath<App.Settings, Duration>, on side: Side = .active, sends event: App.Event,
                againWhen again: @escaping @Sendable (App.State) -> Bool = { _ in false }) {
        self.init(limit, side, event, MachineCondition { state, _ in again(state) })
    }

    /// Held too long, sent again whenever the machine settles with a configuration (every
    /// region's states) where `again` holds.
    @_disfavoredOverload
    public init(after limit: KeyPath<App.Settings, Duration>, on side: Side = .active, sends event: App.Event,
                againWhen again: @escaping @Sendable (ActiveConfiguration<App.State>) -> Bool) {
        self.init(limit, side, event, MachineCondition { (active: ActiveConfiguration<App.State>, _: App.Context) in again(active) })
    }

    init(_ limit: KeyPath<App.Settings, Duration>, _ side: Side, _ event: App.Event, _ again: MachineCondition<App>) {
        self.limit = SendableKeyPath(limit)
        self.event = event
        self.side = side
        self.again = again
    }

    /// Whether a line at level `active` is on the held side.
    @inlinable public func holds(active: Bool) -> Bool { side == .active ? active : !active }
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
