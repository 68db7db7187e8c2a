import ControllerFSM

/// A simulated plant that is a ``Travel``: two motor outputs move a part between two limit
/// switches. An application declares the wiring and a few one-line statics; the rest of
/// ``SimulatedPlant`` comes from here — the `[sim]` keys `travel_time` and where the part
/// starts, the scenario word that jams and frees it, and the physics.
///
/// ```swift
/// public struct BarrierPlant: TravelBetweenLimits {
///     public typealias App = ParkingBarrier
///     public static let wiring = TravelWiring(part: "arm", towardsEnd: "motor_up", towardsRest: "motor_down", atEnd: "up_limit",
///                                             atRest: "down_limit", endWord: "up", restWord: "down", defaultTravelTime: .seconds(3))
///     public static let settingKeys = wiring.settingKeys
///     public static let drivenInputs = wiring.drivenInputs
///     public static let scenarioWords: [ScenarioWord<App>] = wiring.scenarioWords()
///     public var travel: Travel
///
///     public init(travel: Travel) { self.travel = travel }
/// }
/// ```
///
/// The statics are the plant's own stored values, not computed here, so that nothing the
/// simulator asks of the plant on the event path allocates.
public protocol TravelBetweenLimits: SimulatedPlant where Settings == TravelSettings, Action == TravelAction {
    /// The roles, words and default travel time.
    static var wiring: TravelWiring { get }
    /// The part where it is.
    var travel: Travel { get set }
    init(travel: Travel)
}

/// Which roles move a ``TravelBetweenLimits`` part and report its ends, and the words a board
/// and a scenario use for it.
public struct TravelWiring: Sendable {
    /// What moves, as the `[sim]` section and scenarios name it (`arm`: `arm = "up"`, `arm stuck`).
    public let part: String
    /// The output that moves the part towards its end (`motor_up`), and the one that moves it
    /// back to its rest (`motor_down`).
    public let towardsEnd: RoleName, towardsRest: RoleName
    /// The inputs active while the part is at its end (`up_limit`) and at its rest (`down_limit`).
    public let atEnd: RoleName, atRest: RoleName
    /// The words for the end and the rest in `[sim] <part> = …` (`"up"`, `"down"`).
    public let endWord: String, restWord: String
    /// `[sim] travel_time` when the board gives none.
    public let defaultTravelTime: Duration

    public init(part: String, towardsEnd: RoleName, towardsRest: RoleName, atEnd: RoleName, atRest: RoleName,
                endWord: String, restWord: String, defaultTravelTime: Duration) {
        precondition(defaultTravelTime > .zero, "the default travel time must be positive, got \(defaultTravelTime)")
        (self.part, self.towardsEnd, self.towardsRest, self.atEnd, self.atRest) = (part, towardsEnd, towardsRest, atEnd, atRest)
        (self.endWord, self.restWord, self.defaultTravelTime) = (endWord, restWord, defaultTravelTime)
    }

    /// `travel_time` and `<part>` (where the part starts: the rest unless the board says the end).
    public var settingKeys: [SectionKey<TravelSettings>] {
        let (part, end, rest) = (part, endWord, restWord)
        return [
            .duration("travel_time", \.travelTime, summary: "how long the simulated \(part) takes from \(rest) to \(end)"),
            .choice(part, \.startsAtEnd, cases: [false, true], words: { $0 ? end : rest }, summary: "where the simulated \(part) starts: \"\(rest)\" or \"\(end)\""),
        ]
    }

    /// The limit switches: a scenario does not drive them, the plant does.
    public var drivenInputs: [RoleName] { [atEnd, atRest] }

    /// `<part> stuck` and `<part> free`.
    public func scenarioWords<App: ControllerApplication>() -> [ScenarioWord<App>] where App.Plant.Action == TravelAction {
        [.choice(part, [("stuck", .plant(.stuck)), ("free", .plant(.free))])]
    }
}

/// The `[sim]` keys of a ``TravelBetweenLimits`` plant.
public struct TravelSettings: Hashable, Sendable {
    /// `travel_time`: from rest to end while the motor towards the end alone is on.
    public var travelTime: Duration
    /// The part starts at its end (`arm = "up"`), not at its rest.
    public var startsAtEnd: Bool

    public init(travelTime: Duration, startsAtEnd: Bool = false) {
        (self.travelTime, self.startsAtEnd) = (travelTime, startsAtEnd)
    }
}

/// What a scenario may do to a ``TravelBetweenLimits`` part.
public enum TravelAction: Hashable, Sendable {
    /// `<part> stuck`: it stops moving, whatever the motors do.
    case stuck
    /// `<part> free`: it moves again.
    case free
}

extension TravelBetweenLimits {
    public static var defaultSettings: TravelSettings { TravelSettings(travelTime: wiring.defaultTravelTime) }

    public init(settings: TravelSettings, at start: MachineInstant) {
        self.init(travel: Travel(travelTime: settings.travelTime, startsAtEnd: settings.startsAtEnd, at: start))
    }

    public mutating func output(_ role: RoleName, _ level: Bool, at instant: MachineInstant) {
        if role == Self.wiring.towardsEnd {
            travel.drive(towardsEnd: level, towardsRest: travel.towardsRest, at: instant)
        } else if role == Self.wiring.towardsRest {
            travel.drive(towardsEnd: travel.towardsEnd, towardsRest: level, at: instant)
        }
    }

    public mutating func perform(_ action: TravelAction, at instant: MachineInstant) {
        travel.setStuck(action == .stuck, at: instant)
    }

    public var nextChange: MachineInstant? { travel.nextArrival }

    public mutating func advance(to instant: MachineInstant) { travel.advance(to: instant) }

    public func level(of role: RoleName) -> Bool {
        if role == Self.wiring.atEnd { return travel.isAtEnd }
        if role == Self.wiring.atRest { return travel.isAtRest }
        return false
    }
}
