/// A simulation script (`turnstiled simulate --script FILE`): timed input actions and the
/// expectations to check against what the turnstile does.
///
/// ```
/// # <time-in-seconds> <action> [arguments]     '#' starts a comment anywhere
/// 0.0   coin
/// 0.5   push
/// 1.0   expect state locked
/// 1.0   expect counter passages 1
/// 2     push hold 35            # the push line held active for 35 s
/// 40    repair
/// 50    emergency on
/// 55    emergency off
/// 56    fault
/// 60    expect credit 0
/// 60    expect output lock 1
/// 70    end
/// ```
///
/// Times are decimal seconds, read exactly ("0.1" is 100 ms) and never decreasing. The whole
/// file is checked before anything runs: a bad line is a ``ScenarioError`` naming it.
public struct Scenario<App: ControllerApplication>: Hashable, Sendable {
    /// The file as the caller named it (`<stdin>` for standard input).
    public let file: String
    /// The actions in file order, which is also time order.
    public let steps: [ScenarioStep<App>]

    /// When virtual time stops: at `end`, or else 1 s after the last action has finished (a
    /// `push hold` finishes when its hold does, so a jam it provokes is still seen).
    public var endTime: Duration {
        if let last = steps.last, last.action == .end { return last.time }
        let finish = steps.map { step in
            if case .pulse(_, let width?) = step.action { step.time + width } else { step.time }
        }.max() ?? .zero
        return finish + .seconds(1)
    }

    /// The largest scenario read: a day at a busy turnstile recorded as a scenario is well under
    /// a megabyte.
    public static var maxFileSize: Int { 16 * 1024 * 1024 }

    /// Parses scenario text; `file` names it in errors.
    public static func parse(_ text: String, file: String, vocabulary: ScenarioVocabulary<App>) throws(ScenarioError) -> Scenario {
        if let refusal = TextCharacters.check(text) {
            throw ScenarioError(file: file, place: .position(line: refusal.line, column: refusal.column),
                                reason: refusal.reason, hint: refusal.hint)
        }
        var parser = ScenarioParser<App>(file: file, vocabulary: vocabulary)
        var steps: [ScenarioStep<App>] = []
        // "\r\n" is a single Character in Swift, so it has to be named to split Windows files.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, line) in lines.enumerated() {
            let code = line.prefix(while: { $0 != "#" })
            let tokens = code.split(whereSeparator: \.isWhitespace)
            if tokens.isEmpty { continue }
            steps.append(try parser.step(tokens, line: index + 1))
        }
        return Scenario(file: file, steps: steps)
    }

    /// Reads and parses the scenario at `path`; `-` reads standard input.
    public static func load(path: String, vocabulary: ScenarioVocabulary<App>) throws(ScenarioError) -> Scenario {
        let file = path == "-" ? "<stdin>" : path
        let text: String
        do { text = try TextFile.contents(path: path == "-" ? nil : path, limit: maxFileSize) } catch {
            throw ScenarioError(file: file, line: nil, reason: error.reason)
        }
        return try parse(text, file: file, vocabulary: vocabulary)
    }
}

extension Scenario {
    /// The application's demo for `board` (``ControllerApplication/demoScenario(for:)``), as
    /// text.
    public static func demoText(for board: Board<App>) -> String { App.demoScenario(for: board) }

    /// The demo for `board`, parsed.
    public static func demo(for board: Board<App>) throws(ScenarioError) -> Scenario {
        try parse(demoText(for: board), file: "<demo>", vocabulary: ScenarioVocabulary(for: board))
    }
}
