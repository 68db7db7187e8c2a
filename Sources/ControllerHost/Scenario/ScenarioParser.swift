/// Turns one scenario line's tokens into a step, remembering what the ordering rules need from
/// earlier lines.
struct ScenarioParser<App: ControllerApplication> {
    let file: String
    let vocabulary: ScenarioVocabulary<App>
    /// The latest time so far, as written, so a complaint can quote the file back to its author.
    private var previous: (time: Duration, text: Substring, line: Int)?
    private var endLine: Int?

    init(file: String, vocabulary: ScenarioVocabulary<App>) {
        self.file = file
        self.vocabulary = vocabulary
    }

    /// The generic verbs for the lines; an application's own words stand for them in the list
    /// of known actions when it has any.
    private static var lineVerbs: [String] { ["pulse ROLE [SECONDS]", "hold ROLE SECONDS", "set ROLE on|off"] }

    /// The application's words, then its plant's.
    private static var words: [ScenarioWord<App>] { App.scenarioWords + App.Plant.scenarioWords }

    static var knownActions: String {
        let words = App.scenarioWords.flatMap(\.usages)
        let plantWords = App.Plant.scenarioWords.flatMap(\.usages)
        let expectations = (["state", "counter"] + App.gauges.map(\.name) + ["output"]).joined(separator: "|")
        let actions = (words.isEmpty ? lineVerbs : words) + plantWords + ["event NAME", "set TIMING SECONDS", "expect \(expectations)", "end"]
        return "known actions: " + actions.joined(separator: ", ")
    }

    private static var actionNames: [String] {
        words.map(\.name) + ["pulse", "hold", "event", "set", "expect", "inputs", "end"]
    }

    mutating func step(_ tokens: [Substring], line: Int) throws(ScenarioError) -> ScenarioStep<App> {
        let timeText = tokens[0]
        let time = try time(timeText, line: line)
        if let endLine {
            throw error(line, "\"\(tokens.dropFirst().joined(separator: " ").bounded)\" comes after end on line \(endLine)",
                        hint: "end must be the last action")
        }
        if let previous, time < previous.time {
            throw error(line, "time \(timeText.bounded) is earlier than \(previous.text.bounded) on line \(previous.line)",
                        hint: "times must not decrease")
        }
        previous = (time, timeText, line)
        guard tokens.count > 1 else {
            throw error(line, "missing action after time \(timeText.bounded)", hint: Self.knownActions)
        }
        let action = try action(tokens[1], arguments: tokens[2...], line: line)
        if action == .end { endLine = line }
        return ScenarioStep(time: time, line: line, action: action)
    }

    private func time(_ text: Substring, line: Int) throws(ScenarioError) -> Duration {
        switch DecimalDuration.parse(text, unitExponent: 9, limit: TimeLimits.scenarioTime) {
        case .success(let time):
            return time
        case .failure(.finerThanNanoseconds):
            throw error(line, "time \(text.bounded) is finer than a nanosecond", hint: "round it to 9 decimal places or fewer")
        case .failure(.tooLarge):
            throw error(line, "time \(text.bounded) is too large", hint: "scenarios run for at most \(TimeLimits.describe(TimeLimits.scenarioTime))")
        case .failure(.notADecimal):
            let hint = if Self.actionNames.contains(String(text)) {
                "start the line with its time in seconds, e.g. \"0.5 \(text.bounded)\""
            } else if text.hasPrefix("-") {
                "times count seconds from the start of the run, so they are 0 or more"
            } else if text.count > 1, text.last == "s" || text.hasSuffix("ms") {
                "times are plain seconds without a unit, e.g. 1.5"
            } else {
                "each line starts with a time in seconds, like 0, 1.5 or 30"
            }
            throw error(line, "bad time \"\(text.bounded)\"", hint: hint)
        }
    }

    private func action(_ name: Substring, arguments: ArraySlice<Substring>, line: Int) throws(ScenarioError) -> ScenarioAction<App> {
        var reader = ScenarioWordReader(arguments: arguments, file: file, line: line)
        if let word = Self.words.first(where: { $0.name == name }) {
            return try word.read(&reader)
        }
        switch name {
        case "pulse":
            guard arguments.count == 1 || arguments.count == 2 else {
                try reader.expectArity(usage: ["pulse", "ROLE", "SECONDS"])
                throw error(line, "\"pulse\" is missing ROLE", hint: "write \"pulse ROLE\" or \"pulse ROLE SECONDS\"")
            }
            let role = try inputRole(arguments.first!, level: false, line: line)
            guard arguments.count == 2 else { return .pulse(role, width: nil) }
            return .pulse(role, width: try positive(reader.seconds(arguments.last!, what: "the pulse"), what: "a pulse", line: line))
        case "hold":
            try reader.expectArity(usage: ["hold", "ROLE", "SECONDS"])
            let role = try inputRole(arguments.first!, level: false, line: line)
            return .pulse(role, width: try positive(reader.seconds(arguments.last!, what: "the hold"), what: "a hold", line: line))
        case "inputs":
            guard arguments.map(String.init) == ["as", "taken"] else {
                throw error(line, "\"inputs\" takes only \"as taken\"", hint: "write \"0 inputs as taken\" (what a recording starts with)")
            }
            return .inputsAsTaken
        case "unreplayable":
            guard !arguments.isEmpty else {
                throw error(line, "\"unreplayable\" is missing its reason", hint: "the flight recorder writes it with what the run met")
            }
            return .unreplayable(arguments.joined(separator: " "))
        case "event":
            try reader.expectArity(usage: ["event", "NAME"])
            return .command(try command(arguments.first!, line: line))
        case "end":
            try reader.expectArity(usage: ["end"])
            return .end
        case "set":
            if let role = arguments.first, App.inputs.contains(where: { $0.role.rawValue == role && $0.binding.isLevel }) {
                try reader.expectArity(usage: ["set", String(role), "on|off"], from: 1)
                return .level(RoleName(String(role)), on: try reader.onOff(arguments.last!, usage: "\"set \(role) on\" or \"set \(role) off\""))
            }
            try reader.expectArity(usage: ["set", "TIMING", "SECONDS"])
            let key = arguments.first!
            let keys = App.settings.durationKeys.map(\.name)
            guard keys.contains(String(key)) else {
                let hint = [Suggestion.didYouMean(String(key), in: keys), "timings: \(keys.joined(separator: ", "))"]
                    .compactMap { $0 }.joined(separator: " ")
                throw error(line, "unknown timing \"\(key.bounded)\"", hint: hint)
            }
            // The board file's own rule for the key: more than 0, at most a day.
            let value = arguments.last!
            switch DecimalDuration.parse(value, unitExponent: 9, limit: TimeLimits.boardTiming) {
            case .success(let duration) where duration > .zero:
                return .set(String(key), duration)
            case .success:
                throw error(line, "\(key) must be longer than 0 seconds", hint: "write a time in seconds, like 5 or 0.5")
            case .failure(.tooLarge):
                throw error(line, "\(key) \(value.bounded) is too long", hint: "board timings are at most \(TimeLimits.describe(TimeLimits.boardTiming))")
            case .failure(.finerThanNanoseconds):
                throw error(line, "\(key) \(value.bounded) is finer than a nanosecond", hint: "round it to 9 decimal places or fewer")
            case .failure(.notADecimal):
                throw error(line, "bad duration \"\(value.bounded)\" for \(key)", hint: "write seconds without a unit, like 5 or 0.5")
            }
        case "expect":
            return try expectation(arguments, line: line)
        default:
            let hint = [Suggestion.didYouMean(String(name), in: Self.actionNames), Self.knownActions]
                .compactMap { $0 }.joined(separator: " ")
            throw error(line, "unknown action \"\(name.bounded)\"", hint: hint)
        }
    }

    /// An input role the board's application declares, of the right kind for the verb.
    private func inputRole(_ token: Substring, level: Bool, line: Int) throws(ScenarioError) -> RoleName {
        let roles = App.inputs.filter { $0.binding.isLevel == level }.map(\.role.rawValue)
        guard roles.contains(String(token)) else {
            let kind = level ? "level input" : "pulse input"
            let hint = [Suggestion.didYouMean(String(token), in: roles), "\(kind)s: \(roles.joined(separator: ", "))"]
                .compactMap { $0 }.joined(separator: " ")
            throw error(line, "unknown \(kind) \"\(token.bounded)\"", hint: hint)
        }
        return RoleName(String(token))
    }

    private func positive(_ duration: Duration, what: String, line: Int) throws(ScenarioError) -> Duration {
        guard duration > .zero else {
            throw error(line, "\(what) must last longer than 0 seconds", hint: "write a time in seconds, like 2 or 0.5")
        }
        return duration
    }

    /// The direct command `event NAME` names; an input that comes from a line is refused with
    /// the action that drives the line.
    private func command(_ token: Substring, line: Int) throws(ScenarioError) -> App.Event {
        let commands = App.commands.map(\.event)
        let names = commands.map(\.name)
        if let event = commands.first(where: { $0.name == token }) { return event }
        if let event = App.Event.allCases.first(where: { $0.name == token }) {
            let action = drivingAction(of: event) ?? "nothing: the machine's own timer sends it"
            throw error(line, "\"\(token.bounded)\" is not a direct command", hint: "it comes from its line; write \(action)")
        }
        let hint = [Suggestion.didYouMean(String(token), in: names), "direct commands: \(names.joined(separator: ", "))"]
            .compactMap { $0 }.joined(separator: " ")
        throw error(line, "unknown command \"\(token.bounded)\"", hint: hint)
    }

    /// How a scenario drives the line that sends `event`: the application's word for it, or
    /// the generic verb.
    private func drivingAction(of event: App.Event) -> String? {
        for input in App.inputs {
            let action: ScenarioAction<App>
            switch input.binding {
            case .pulse(let sent) where sent == event: action = .pulse(input.role, width: nil)
            case .level(let on, let off, _) where on == event || off == event: action = .level(input.role, on: on == event)
            case .condition(let on, let off) where on == event || off == event: action = .level(input.role, on: on == event)
            default: continue
            }
            if let word = App.scenarioWords.lazy.compactMap({ $0.writes(action) }).first { return word }
            if case .level(let role, let on) = action { return "set \(role) \(on ? "on" : "off")" }
            return "pulse \(input.role)"
        }
        return nil
    }

    private func expectation(_ arguments: ArraySlice<Substring>, line: Int) throws(ScenarioError) -> ScenarioAction<App> {
        let gauges = App.gauges.map(\.name)
        let kinds = ["state", "counter"] + gauges + ["output"]
        let usage = (["expect state NAME", "expect counter NAME VALUE"] + gauges.map { "expect \($0) N" }).joined(separator: ", ")
            + " or expect output NAME 0|1"
        guard let kind = arguments.first else {
            throw error(line, "\"expect\" needs something to check", hint: "write \(usage)")
        }
        let values = arguments.dropFirst()
        switch kind {
        case "state":
            try expectArity(arguments, usage: ["expect", "state", "NAME"], line: line, from: 1)
            return .expectState(try name(values.first!, in: vocabulary.states, kind: "state", line: line))
        case "counter":
            try expectArity(arguments, usage: ["expect", "counter", "NAME", "VALUE"], line: line, from: 1)
            let counter = try name(values.first!, in: vocabulary.counters, kind: "counter", line: line)
            return .expectCounter(counter, try count(values.last!, line: line))
        case let gauge where gauges.contains(String(gauge)):
            try expectArity(arguments, usage: ["expect", String(gauge), "N"], line: line, from: 1)
            return .expectGauge(String(gauge), try count(values.first!, line: line))
        case "output":
            try expectArity(arguments, usage: ["expect", "output", "NAME", "0|1"], line: line, from: 1)
            let output = try name(values.first!, in: vocabulary.outputs, kind: "output", line: line)
            switch values.last! {
            case "1": return .expectOutput(output, true)
            case "0": return .expectOutput(output, false)
            case let other:
                throw error(line, "output value \"\(other.bounded)\" is not 0 or 1",
                            hint: "values are logical: 1 is on (lock 1 = locked), 0 is off")
            }
        default:
            let hint = [Suggestion.didYouMean(String(kind), in: kinds), "write \(usage)"].compactMap { $0 }.joined(separator: " ")
            throw error(line, "unknown expectation \"expect \(kind.bounded)\"", hint: hint)
        }
    }

    /// Checks that `arguments` (the tokens after the action name) fill `usage` exactly.
    /// `usage` spells the whole form (`["expect", "counter", "NAME", "VALUE"]`), of which the first
    /// `1 + from` words are the action's name; the rest are placeholders.
    private func expectArity(_ arguments: ArraySlice<Substring>, usage: [String], line: Int, from: Int = 0) throws(ScenarioError) {
        try ScenarioWordReader(arguments: arguments, file: file, line: line).expectArity(usage: usage, from: from)
    }

    private func name(_ token: Substring, in known: Set<String>, kind: String, line: Int) throws(ScenarioError) -> String {
        let name = String(token)
        guard known.contains(name) else {
            let list = known.isEmpty ? "(none)" : known.sorted().joined(separator: ", ")
            let hint = [Suggestion.didYouMean(name, in: known), "known \(kind)s: \(list)"].compactMap { $0 }.joined(separator: " ")
            throw error(line, "unknown \(kind) \"\(name.bounded)\"", hint: hint)
        }
        return name
    }

    private func count(_ token: Substring, line: Int) throws(ScenarioError) -> Int {
        guard !token.isEmpty, token.allSatisfy(\.isASCIIDigit) else {
            throw error(line, "\"\(token.bounded)\" is not a count", hint: "counts are whole numbers, 0 or more")
        }
        guard let value = Int(token) else {
            throw error(line, "count \(token.bounded) is too large", hint: "counts go up to \(Int.max)")
        }
        return value
    }

    private func error(_ line: Int, _ reason: String, hint: String?) -> ScenarioError {
        ScenarioError(file: file, line: line, reason: reason, hint: hint)
    }
}
