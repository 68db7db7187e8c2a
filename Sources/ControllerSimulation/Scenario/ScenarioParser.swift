import ControllerHost
import Turnstile
/// Turns one scenario line's tokens into a step, remembering what the ordering rules need from
/// earlier lines.
struct ScenarioParser {
    let file: String
    let vocabulary: ScenarioVocabulary
    /// The latest time so far, as written, so a complaint can quote the file back to its author.
    private var previous: (time: Duration, text: Substring, line: Int)?
    private var endLine: Int?

    init(file: String, vocabulary: ScenarioVocabulary) {
        self.file = file
        self.vocabulary = vocabulary
    }

    static let knownActions = "known actions: coin, push, push hold SECONDS, repair, emergency on|off, fault, "
        + "event NAME, set TIMING SECONDS, expect state|counter|credit|output, end"
    private static let actionNames = ["coin", "push", "repair", "emergency", "fault", "event", "set", "expect", "end"]

    mutating func step(_ tokens: [Substring], line: Int) throws(ScenarioError) -> ScenarioStep {
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

    private func action(_ name: Substring, arguments: ArraySlice<Substring>, line: Int) throws(ScenarioError) -> ScenarioAction {
        switch name {
        case "coin":
            try expectArity(arguments, usage: ["coin"], line: line)
            return .coin
        case "push":
            guard let first = arguments.first else { return .push }
            guard first == "hold" else {
                throw error(line, "unexpected \"\(first.bounded)\" after \"push\"", hint: "write \"push\" or \"push hold SECONDS\"")
            }
            try expectArity(arguments, usage: ["push", "hold", "SECONDS"], line: line, from: 1)
            let hold = try seconds(arguments[arguments.startIndex + 1], what: "the hold", line: line)
            guard hold > .zero else {
                throw error(line, "a push hold must last longer than 0 seconds", hint: "write \"push\" for an ordinary passage")
            }
            return .pushHold(hold)
        case "repair":
            try expectArity(arguments, usage: ["repair"], line: line)
            return .repair
        case "fault":
            try expectArity(arguments, usage: ["fault"], line: line)
            return .command(.fault)
        case "unreplayable":
            guard !arguments.isEmpty else {
                throw error(line, "\"unreplayable\" is missing its reason", hint: "the flight recorder writes it with what the run met")
            }
            return .unreplayable(arguments.joined(separator: " "))
        case "event":
            try expectArity(arguments, usage: ["event", "NAME"], line: line)
            return .command(try command(arguments.first!, line: line))
        case "end":
            try expectArity(arguments, usage: ["end"], line: line)
            return .end
        case "set":
            try expectArity(arguments, usage: ["set", "TIMING", "SECONDS"], line: line)
            let key = arguments.first!
            let keys = BoardFile.TurnstileSettings.Timing.allCases.map(\.rawValue)
            guard let timing = BoardFile.TurnstileSettings.Timing(rawValue: String(key)) else {
                let hint = [Suggestion.didYouMean(String(key), in: keys), "timings: \(keys.joined(separator: ", "))"]
                    .compactMap { $0 }.joined(separator: " ")
                throw error(line, "unknown timing \"\(key)\"", hint: hint)
            }
            // The board file's own rule for the key: more than 0, at most a day.
            let value = arguments.last!
            switch DecimalDuration.parse(value, unitExponent: 9, limit: TimeLimits.boardTiming) {
            case .success(let duration) where duration > .zero:
                return .set(timing, duration)
            case .success:
                throw error(line, "\(key) must be longer than 0 seconds", hint: "write a time in seconds, like 5 or 0.5")
            case .failure(.tooLarge):
                throw error(line, "\(key) \(value) is too long", hint: "board timings are at most \(TimeLimits.describe(TimeLimits.boardTiming))")
            case .failure(.finerThanNanoseconds):
                throw error(line, "\(key) \(value) is finer than a nanosecond", hint: "round it to 9 decimal places or fewer")
            case .failure(.notADecimal):
                throw error(line, "bad duration \"\(value)\" for \(key)", hint: "write seconds without a unit, like 5 or 0.5")
            }
        case "emergency":
            try expectArity(arguments, usage: ["emergency", "on|off"], line: line)
            switch arguments.first! {
            case "on": return .emergency(on: true)
            case "off": return .emergency(on: false)
            case let other: throw error(line, "\"\(other.bounded)\" is not on or off", hint: "write \"emergency on\" or \"emergency off\"")
            }
        case "expect":
            return try expectation(arguments, line: line)
        default:
            let hint = [Suggestion.didYouMean(String(name), in: Self.actionNames), Self.knownActions]
                .compactMap { $0 }.joined(separator: " ")
            throw error(line, "unknown action \"\(name.bounded)\"", hint: hint)
        }
    }

    /// The direct command `event NAME` names; an input that comes from a line is refused with
    /// the action that drives the line.
    private func command(_ token: Substring, line: Int) throws(ScenarioError) -> TurnstileEvent {
        let names = TurnstileEvent.directCommands.map(\.name)
        if let event = TurnstileEvent.directCommands.first(where: { $0.name == token }) { return event }
        let lineAction: [Substring: String] = ["coin": "coin", "push": "push", "timeout": "nothing: the machine's own timer sends it"]
        if let action = lineAction[token] {
            throw error(line, "\"\(token)\" is not a direct command", hint: "it comes from its line; write \(action)")
        }
        let hint = [Suggestion.didYouMean(String(token), in: names), "direct commands: \(names.joined(separator: ", "))"]
            .compactMap { $0 }.joined(separator: " ")
        throw error(line, "unknown command \"\(token)\"", hint: hint)
    }

    private func expectation(_ arguments: ArraySlice<Substring>, line: Int) throws(ScenarioError) -> ScenarioAction {
        let kinds = ["state", "counter", "credit", "output"]
        let usage = "expect state NAME, expect counter NAME VALUE, expect credit N or expect output NAME 0|1"
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
        case "credit":
            try expectArity(arguments, usage: ["expect", "credit", "N"], line: line, from: 1)
            return .expectCredit(try count(values.first!, line: line))
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
        let expected = usage.count - 1
        let form = usage.joined(separator: " ")
        let head = usage.prefix(1 + from).joined(separator: " ")
        if arguments.count < expected {
            let missing = usage[(arguments.count + 1)...].joined(separator: " ")
            throw error(line, "\"\(head)\" is missing \(missing)", hint: "write \"\(form)\"")
        }
        if arguments.count > expected {
            throw error(line, "unexpected \"\(arguments[arguments.startIndex + expected].bounded)\" after \"\(head)\"",
                        hint: "write \"\(form)\", one action a line")
        }
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

    private func seconds(_ token: Substring, what: String, line: Int) throws(ScenarioError) -> Duration {
        switch DecimalDuration.parse(token, unitExponent: 9, limit: TimeLimits.scenarioTime) {
        case .success(let duration): return duration
        case .failure(.notADecimal):
            throw error(line, "bad duration \"\(token.bounded)\" for \(what)", hint: "write seconds without a unit, like 35 or 0.5")
        case .failure(.finerThanNanoseconds):
            throw error(line, "duration \(token.bounded) is finer than a nanosecond", hint: "round it to 9 decimal places or fewer")
        case .failure(.tooLarge):
            throw error(line, "duration \(token.bounded) is too large", hint: "scenarios run for at most \(TimeLimits.describe(TimeLimits.scenarioTime))")
        }
    }

    private func error(_ line: Int, _ reason: String, hint: String?) -> ScenarioError {
        ScenarioError(file: file, line: line, reason: reason, hint: hint)
    }
}
