import ControllerHost

/// What a stop drives, from the declaration and the settings in force: each output that has a
/// stop level, at it, and the choice settings that decide it (the turnstile's lock by its
/// `fail_mode`). The ready line, the stop line and the stop record all say it from here.
struct StopLevels<App: ControllerApplication> {
    /// The outputs with a stop level, in declaration order, and the level each is driven to.
    let outputs: [(output: OutputDeclaration<App>, level: Bool)]
    /// `fail_mode secure`: every choice setting with its word.
    let choices: [String]

    init(_ settings: App.Settings) {
        outputs = App.outputs.compactMap { output in output.stopLevel.map { (output, $0(settings)) } }
        choices = App.settings.keys.filter { !$0.isDuration }.map { "\($0.name) \($0.text(in: settings))" }
    }

    /// ` (fail_mode secure)`, or nothing without choices.
    var choicesInParentheses: String { choices.isEmpty ? "" : " (\(choices.joined(separator: ", ")))" }
}
