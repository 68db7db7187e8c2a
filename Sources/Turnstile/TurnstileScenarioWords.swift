import ControllerHost

extension TurnstileApplication {
    /// The turnstile's scenario words (docs/reference/scenarios.md): each stands for a
    /// generic verb, so scenarios written before the runtime was generic read as they did.
    public static let scenarioWords: [ScenarioWord<Self>] = [
        .fixed("coin", .pulse("coin", width: nil)),
        ScenarioWord("push", usages: ["push", "push hold SECONDS"], read: { (reader: inout ScenarioWordReader) throws(ScenarioError) in
            guard let first = reader.arguments.first else { return .pulse("push", width: nil) }
            guard first == "hold" else {
                throw reader.error("unexpected \"\(first.bounded)\" after \"push\"", hint: "write \"push\" or \"push hold SECONDS\"")
            }
            try reader.expectArity(usage: ["push", "hold", "SECONDS"], from: 1)
            let hold = try reader.seconds(reader.arguments[reader.arguments.startIndex + 1], what: "the hold")
            guard hold > .zero else {
                throw reader.error("a push hold must last longer than 0 seconds", hint: "write \"push\" for an ordinary passage")
            }
            return .pulse("push", width: hold)
        }, writes: { action in
            guard case .pulse("push", let width) = action else { return nil }
            return width.map { "push hold \($0.exactSecondsText)" } ?? "push"
        }),
        .fixed("repair", .pulse("service", width: nil)),
        .choice("emergency", [("on", .level("emergency", on: true)), ("off", .level("emergency", on: false))]),
        .fixed("fault", .command(.fault)),
    ]
}
