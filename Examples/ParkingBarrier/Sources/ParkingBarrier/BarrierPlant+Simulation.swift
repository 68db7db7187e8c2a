import ControllerFSM
import ControllerHost

/// The simulated arm's `[sim]` keys on a barrier board.
public struct BarrierPlantSettings: Hashable, Sendable {
    /// Where the arm is when the simulation starts.
    public enum Arm: String, CaseIterable, Sendable {
        case down, up
    }

    /// `travel_time`: from rest to the top while `motor_up` alone is on.
    public var travelTime = BarrierPlant.defaultTravelTime
    /// `arm`: `"down"` (the default) or `"up"`.
    public var arm = Arm.down

    public init(travelTime: Duration = BarrierPlant.defaultTravelTime, arm: Arm = .down) {
        self.travelTime = travelTime
        self.arm = arm
    }
}

/// What a scenario may do to the simulated arm.
public enum BarrierPlantAction: Hashable, Sendable {
    /// `arm stuck`: it stops moving, whatever the motors do.
    case stuck
    /// `arm free`: it moves again.
    case free
}

/// The arm as the runtime's simulator drives it: it hears `motor_up` and `motor_down`, and
/// answers with `up_limit` and `down_limit`.
extension BarrierPlant: SimulatedPlant {
    public typealias App = ParkingBarrier

    public static let settingKeys: [SectionKey<BarrierPlantSettings>] = [
        .duration("travel_time", \.travelTime, summary: "how long the simulated arm takes from rest to the top"),
        .choice("arm", \.arm, summary: "where the simulated arm starts: \"down\" or \"up\""),
    ]
    public static var defaultSettings: BarrierPlantSettings { BarrierPlantSettings() }
    public static let drivenInputs: [RoleName] = ["up_limit", "down_limit"]

    public static let scenarioWords: [ScenarioWord<ParkingBarrier>] = [
        ScenarioWord("arm", usages: ["arm stuck", "arm free"], read: { (reader: inout ScenarioWordReader) throws(ScenarioError) in
            try reader.expectArity(usage: ["arm", "stuck|free"])
            switch reader.arguments.first! {
            case "stuck": return .plant(.stuck)
            case "free": return .plant(.free)
            case let other: throw reader.error("\"\(other.bounded)\" is not stuck or free", hint: "write \"arm stuck\" or \"arm free\"")
            }
        }, writes: { action in
            guard case .plant(let action) = action else { return nil }
            return action == .stuck ? "arm stuck" : "arm free"
        }),
    ]

    public init(settings: BarrierPlantSettings, at start: MachineInstant) {
        self.init(travelTime: settings.travelTime, startsUp: settings.arm == .up, at: start)
    }

    public mutating func output(_ role: RoleName, _ level: Bool, at instant: MachineInstant) {
        switch role {
        case "motor_up": drive(motorUp: level, motorDown: motorDown, at: instant)
        case "motor_down": drive(motorUp: motorUp, motorDown: level, at: instant)
        default: break
        }
    }

    public mutating func perform(_ action: BarrierPlantAction, at instant: MachineInstant) {
        setStuck(action == .stuck, at: instant)
    }

    public var nextChange: MachineInstant? { nextArrival }

    public func level(of role: RoleName) -> Bool {
        switch role {
        case "up_limit": upLimit
        case "down_limit": downLimit
        default: false
        }
    }
}
