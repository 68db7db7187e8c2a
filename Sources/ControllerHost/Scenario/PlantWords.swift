/// The simulated plant's words said outside a scenario — `ctl plant arm stuck`, a request on the
/// MQTT command topics — read as a scenario line reads them, by the plant's own
/// ``SimulatedPlant/scenarioWords``.
public enum PlantWords<App: ControllerApplication> {
    /// Every form the plant's words take (`arm stuck`, `arm free`); empty when the application
    /// has no plant, or one without words.
    public static var usages: [String] { App.Plant.scenarioWords.flatMap(\.usages) }

    /// `text` (a word and its arguments, separated by spaces) as the plant's action, or the
    /// error saying why not (its `reason` and `hint`; `source` names the sender as a file would).
    public static func action(_ text: String, source: String) -> Result<App.Plant.Action, ScenarioError> {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let first = tokens.first else {
            return .failure(ScenarioError(file: source, line: nil, reason: "no plant words given", hint: known))
        }
        guard let word = App.Plant.scenarioWords.first(where: { $0.name == first }) else {
            return .failure(ScenarioError(file: source, line: nil, reason: "\"\(first.bounded)\" is not a word of the \(App.name)'s simulated plant", hint: known))
        }
        var reader = ScenarioWordReader(arguments: tokens.dropFirst(), file: source, line: nil)
        do {
            guard case .plant(let action) = try word.read(&reader) else {
                return .failure(ScenarioError(file: source, line: nil, reason: "\"\(first.bounded)\" does not act on the plant", hint: known))
            }
            return .success(action)
        } catch {
            return .failure(error)
        }
    }

    /// The words' text for `action`, as a scenario writes it (`arm stuck`).
    public static func text(_ action: App.Plant.Action) -> String {
        App.Plant.scenarioWords.lazy.compactMap { $0.writes(.plant(action)) }.first ?? "\(action)"
    }

    private static var known: String {
        usages.isEmpty ? "the \(App.name) has no simulated plant words" : "the plant's words: " + usages.joined(separator: ", ")
    }
}
