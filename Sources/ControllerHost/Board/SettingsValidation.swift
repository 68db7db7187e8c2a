/// The one validation of an application's settings against the board they run on, used by
/// every entry point that can set them: a board file read (`check`, `run`, `simulate`, a SIGHUP
/// reload all read it so), and a scenario's `set TIMING SECONDS` (checked with the scenario,
/// before anything runs). A value that passes one entry point passes every other, and one that
/// is refused is refused everywhere with the same message.
///
/// Every board is held to ``SettingsDeclaration/relations``; a board the simulator runs
/// (`backend = "sim"`, or any board under `simulate`) to ``SettingsDeclaration/simulatedRelations``
/// besides.
extension Board {
    /// Refuses `settings` on this board, naming the key, the relation and the smallest value
    /// that works. `simulated`: whether the simulator runs the board (by default, when its
    /// backend is the simulator's).
    public func validate(_ settings: App.Settings, file: String, simulated: Bool? = nil) throws(BoardFileError) {
        var candidate = self
        candidate.settings = settings
        for relation in App.settings.relations { try relation.check(candidate, file: file) }
        guard simulated ?? (backend == .sim) else { return }
        for relation in App.settings.simulatedRelations { try relation.check(candidate, file: file) }
    }
}
