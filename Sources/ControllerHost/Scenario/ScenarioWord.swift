/// One of an application's own scenario words, on top of the generic verbs: the turnstile's
/// `coin` is `pulse coin`, its `emergency on` is `set emergency on`. A word reads the tokens
/// after it and returns the generic action it stands for; the flight recorder writes a recorded
/// action back as the first word whose ``writes`` gives text for it.
public struct ScenarioWord<App: ControllerApplication>: Sendable {
    /// The word that starts the line.
    public let name: String
    /// How the word is written, for the list of known actions (`push hold SECONDS`), one entry
    /// per form.
    public let usages: [String]
    /// Reads the tokens after the word.
    public let read: @Sendable (inout ScenarioWordReader) throws(ScenarioError) -> ScenarioAction<App>
    /// The word's text for an action it stands for (without the time), or `nil`.
    public let writes: @Sendable (ScenarioAction<App>) -> String?

    public init(
        _ name: String, usages: [String]? = nil,
        read: @escaping @Sendable (inout ScenarioWordReader) throws(ScenarioError) -> ScenarioAction<App>,
        writes: @escaping @Sendable (ScenarioAction<App>) -> String?
    ) {
        self.name = name
        self.usages = usages ?? [name]
        self.read = read
        self.writes = writes
    }

    /// A word with no arguments that stands for one action (`coin`: `pulse coin`).
    public static func fixed(_ name: String, _ action: ScenarioAction<App>) -> Self {
        Self(name, read: { (reader: inout ScenarioWordReader) throws(ScenarioError) in
            try reader.expectArity(usage: [name])
            return action
        }, writes: { $0 == action ? name : nil })
    }

    /// A word followed by one of a fixed set, each standing for one action (`emergency on`:
    /// `set emergency on`; a plant's `arm stuck`); anything else is refused with every form.
    ///
    /// ```swift
    /// .choice("emergency", [("on", .level("emergency", on: true)), ("off", .level("emergency", on: false))]),
    /// ```
    public static func choice(_ name: String, _ choices: [(word: String, action: ScenarioAction<App>)]) -> Self {
        let words = choices.map(\.word)
        let hint = "write " + words.map { "\"\(name) \($0)\"" }.listed("or")
        return Self(name, usages: ["\(name) \(words.joined(separator: "|"))"], read: { (reader: inout ScenarioWordReader) throws(ScenarioError) in
            try reader.expectArity(usage: [name, words.joined(separator: "|")])
            let token = reader.arguments[reader.arguments.startIndex]
            guard let chosen = choices.first(where: { $0.word == token }) else {
                throw reader.error("\"\(token.bounded)\" is not \(words.listed("or"))", hint: hint)
            }
            return chosen.action
        }, writes: { action in choices.first { $0.action == action }.map { "\(name) \($0.word)" } })
    }
}

/// What an application's word reads its arguments with: the arity and number rules, and errors
/// that name the file and line, as the generic verbs have them.
public struct ScenarioWordReader {
    /// The tokens after the word.
    public let arguments: ArraySlice<Substring>
    let file: String
    let line: Int?

    /// Refuses unless the arguments fill `usage` exactly. `usage` spells the whole form
    /// (`["push", "hold", "SECONDS"]`), of which the first `1 + from` words are the action's
    /// name; the rest are placeholders.
    public func expectArity(usage: [String], from: Int = 0) throws(ScenarioError) {
        let expected = usage.count - 1
        let form = usage.joined(separator: " ")
        let head = usage.prefix(1 + from).joined(separator: " ")
        if arguments.count < expected {
            let missing = usage[(arguments.count + 1)...].joined(separator: " ")
            throw error("\"\(head)\" is missing \(missing)", hint: "write \"\(form)\"")
        }
        if arguments.count > expected {
            throw error("unexpected \"\(arguments[arguments.startIndex + expected].bounded)\" after \"\(head)\"",
                        hint: "write \"\(form)\", one action a line")
        }
    }

    /// A duration in seconds within a scenario's limits; `what` names it in messages.
    public func seconds(_ token: Substring, what: String) throws(ScenarioError) -> Duration {
        switch DecimalDuration.parse(token, unitExponent: 9, limit: TimeLimits.scenarioTime) {
        case .success(let duration): return duration
        case .failure(.notADecimal):
            throw error("bad duration \"\(token.bounded)\" for \(what)", hint: "write seconds without a unit, like 35 or 0.5")
        case .failure(.finerThanNanoseconds):
            throw error("duration \(token.bounded) is finer than a nanosecond", hint: "round it to 9 decimal places or fewer")
        case .failure(.tooLarge):
            throw error("duration \(token.bounded) is too large", hint: "scenarios run for at most \(TimeLimits.describe(TimeLimits.scenarioTime))")
        }
    }

    /// `on` or `off`; `usage` is how the line should read.
    public func onOff(_ token: Substring, usage: String) throws(ScenarioError) -> Bool {
        switch token {
        case "on": return true
        case "off": return false
        default: throw error("\"\(token.bounded)\" is not on or off", hint: "write \(usage)")
        }
    }

    /// An error at this line.
    public func error(_ reason: String, hint: String?) -> ScenarioError {
        ScenarioError(file: file, line: line, reason: reason, hint: hint)
    }
}
