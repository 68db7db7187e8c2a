import ControllerFSM

/// A model of the mechanism behind a simulated board: it answers the controller's outputs with
/// input levels, as the real machine would (a barrier's arm reaches its limit switch some time
/// after its motor starts). An application names its plant as ``ControllerApplication/Plant``;
/// the simulator and the daemon's simulated source drive it, on every application's terms:
///
/// - it is made from the board's `[sim]` section, whose keys it declares (``settingKeys``);
/// - it is told each output write, with its instant (``output(_:_:at:)``);
/// - it is asked when it will next change an input (``nextChange``), brought up to an instant
///   (``advance(to:)``) and asked for the level of each input it drives (``level(of:)``); the
///   simulator drives those levels on the simulated lines, where they bounce and are debounced
///   like every input;
/// - its scenario words (``scenarioWords``, e.g. `arm stuck`) stand for ``Action``s, which the
///   player hands to it at their time (``perform(_:at:)``).
///
/// Instants never go backwards. A plant is a value, copied with the simulation it belongs to.
public protocol SimulatedPlant<App>: Sendable {
    associatedtype App: ControllerApplication
    /// The plant's `[sim]` values (`travel_time`, `arm`).
    associatedtype Settings: Hashable & Sendable
    /// What a scenario may do to the plant (`arm stuck`); `Never` when nothing.
    associatedtype Action: Hashable & Sendable

    /// The plant's keys in a board's `[sim]` section, besides the simulator's own
    /// (`<role>_pulse`, `bounce_edges`, `bounce_window`); a board of another application refuses them.
    static var settingKeys: [SectionKey<Settings>] { get }
    /// The values of keys the board does not give.
    static var defaultSettings: Settings { get }
    /// The input roles whose levels the plant drives (`up_limit`, `down_limit`); a scenario
    /// does not drive them itself.
    static var drivenInputs: [RoleName] { get }
    /// The plant's scenario words; each reads to ``ScenarioAction/plant(_:)``.
    static var scenarioWords: [ScenarioWord<App>] { get }

    /// The plant as it stands at `start`, before the controller starts.
    init(settings: Settings, at start: MachineInstant)
    /// The controller wrote `level` (logical) to the output `role` at `instant`.
    mutating func output(_ role: RoleName, _ level: Bool, at instant: MachineInstant)
    /// A scenario's action at `instant`.
    mutating func perform(_ action: Action, at instant: MachineInstant)
    /// When an input level will next change if no output does; `nil` when none will.
    var nextChange: MachineInstant? { get }
    /// Brings the plant to where it is at `instant`.
    mutating func advance(to instant: MachineInstant)
    /// The logical level the plant holds on `role`, one of ``drivenInputs``.
    func level(of role: RoleName) -> Bool
}

extension SimulatedPlant {
    public static var scenarioWords: [ScenarioWord<App>] { [] }
}

/// The plant of an application that declares none: it drives nothing and takes no `[sim]` keys,
/// so the simulator works exactly as without a plant.
public struct NoPlant<App: ControllerApplication>: SimulatedPlant {
    public struct Settings: Hashable, Sendable {}
    public typealias Action = Never

    public static var settingKeys: [SectionKey<Settings>] { [] }
    public static var defaultSettings: Settings { Settings() }
    public static var drivenInputs: [RoleName] { [] }

    public init(settings: Settings, at start: MachineInstant) {}
    public func output(_ role: RoleName, _ level: Bool, at instant: MachineInstant) {}
    public func perform(_ action: Never, at instant: MachineInstant) {}
    public var nextChange: MachineInstant? { nil }
    public func advance(to instant: MachineInstant) {}
    public func level(of role: RoleName) -> Bool { false }
}
