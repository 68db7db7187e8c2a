extension Board {
    /// The application's built-in simulated board (``ControllerApplication/builtInBoard``),
    /// parsed. Its text is a constant the application's tests parse: a failure here is a defect
    /// of the build, not of anything a user gave.
    public static var builtIn: Board<App> {
        do {
            return try parse(App.builtInBoard.text, file: App.builtInBoard.file)
        } catch {
            preconditionFailure("\(App.daemonName)'s built-in board is invalid: \(error)")
        }
    }
}
