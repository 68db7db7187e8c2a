import ControllerHost

extension ParkingBarrier {
    /// `boards/sim.toml`, built in so that `barrierd simulate` runs without a board path. The
    /// package embeds the file itself (`Resources/sim.toml` links to it): there is no copy.
    public static let simBoardText = String(decoding: PackageResources.sim_toml, as: UTF8.self)

    /// The name the built-in board goes by in messages.
    public static let simBoardFile = "boards/sim.toml (built in)"
}
