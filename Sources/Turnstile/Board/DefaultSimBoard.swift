extension BoardFile {
    /// The text of `boards/sim.toml`, built in so that `turnstiled simulate` runs without a board
    /// path and without knowing where the repository is. The package embeds the file itself
    /// (`Sources/Turnstile/Resources/sim.toml` links to it), so there is no copy to keep in step.
    package static let defaultSimText = String(decoding: PackageResources.sim_toml, as: UTF8.self)

    /// `defaultSimText`, parsed: the simulated board with every input and output role wired.
    public static let defaultSim: BoardFile = {
        do {
            return try parse(defaultSimText, file: defaultSimFile)
        } catch {
            // The text is a constant that the test suite parses; reaching here is a build defect.
            preconditionFailure("the built-in board is invalid: \(error)")
        }
    }()

    /// The name the built-in board goes by in messages.
    static let defaultSimFile = "boards/sim.toml (built in)"
}
