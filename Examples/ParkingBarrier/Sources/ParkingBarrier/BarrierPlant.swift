import ControllerHost

/// The simulated arm: what the simulator puts behind the motor outputs and the limit switches,
/// the runtime's ``TravelBetweenLimits`` wired to the barrier's lines. It travels from rest to
/// the top in `[sim] travel_time` (3 s unless the board says) while `motor_up` alone is on, and
/// back while `motor_down` alone is on; it starts where `[sim] arm` says (`"down"` or `"up"`),
/// and a scenario jams it with `arm stuck` and frees it with `arm free`.
public struct BarrierPlant: TravelBetweenLimits {
    public typealias App = ParkingBarrier
    public static let wiring = TravelWiring(part: "arm", towardsEnd: "motor_up", towardsRest: "motor_down", atEnd: "up_limit",
                                            atRest: "down_limit", endWord: "up", restWord: "down", defaultTravelTime: .seconds(3))
    public static let settingKeys = wiring.settingKeys
    public static let drivenInputs = wiring.drivenInputs
    public static let scenarioWords: [ScenarioWord<App>] = wiring.scenarioWords()
    public var travel: Travel

    public init(travel: Travel) { self.travel = travel }
}
