import ControllerHost

extension ParkingBarrier {
    /// `boards/sim.toml`, built in so that `barrierd simulate` runs without a board path. The
    /// package embeds the file itself (`Resources/sim.toml` links to it): there is no copy.
    public static let simBoardText = String(decoding: PackageResources.sim_toml, as: UTF8.self)

    /// The name the built-in board goes by in messages.
    public static let simBoardFile = "boards/sim.toml (built in)"

    /// The scenario `barrierd simulate` plays without `--script`: `scenarios/demo.scenario`,
    /// embedded as the board is. It visits every state on the simulated arm with the default
    /// `[barrier]` timings, checked as it goes; any board keeps those timings' meaning.
    public static func demoScenario(for _: Board<ParkingBarrier>) -> String {
        String(decoding: PackageResources.demo_scenario, as: UTF8.self)
    }
}
