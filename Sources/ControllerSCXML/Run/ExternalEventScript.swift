import ControllerFSM
import ControllerHost

/// Events from outside a chart, each at its time: what `scxml-run --events FILE` gives a chart
/// that waits for the world (a button, a sensor). One event a line, in the scenario language's
/// timing — seconds from the start, never earlier than the line before:
///
/// ```
/// # a door chart: opened, then closed before its timer
/// 1     open
/// 2.5   event close
/// ```
///
/// `TIME NAME` or `TIME event NAME` (as a scenario writes a direct command); `#` starts a comment.
/// Each event joins the chart's external queue at its time, after the delayed sends due at that
/// same time.
public struct ExternalEventScript: Sendable, Equatable {
    public struct Step: Sendable, Equatable {
        /// When it joins the external queue, from the start of the run.
        public var time: Duration
        public var event: String
        /// Its line in the file, for messages.
        public var line: Int
    }

    /// The file it was read from, as messages name it.
    public let file: String
    public let steps: [Step]

    /// The most bytes an events file may hold (a file that is not one must not fill memory).
    public static let maximumBytes = 1 << 20

    /// The script in `text`, read as the file `file`. A line that is not `TIME NAME` or `TIME
    /// event NAME`, a bad time or one earlier than the line before is refused, naming the line.
    public static func parse(_ text: String, file: String) throws(SCXMLError) -> ExternalEventScript {
        var steps: [Step] = []
        var previous = Duration.zero
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = index + 1
            let code = rawLine.prefix { $0 != "#" }
            let tokens = code.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if tokens.isEmpty { continue }
            func refuse(_ reason: String) -> SCXMLError { .malformed(file: file, line: line, element: nil, reason: reason) }
            let time: Duration
            switch DecimalDuration.parse(tokens[0], unitExponent: 9, limit: TimeLimits.scenarioTime) {
            case .success(let parsed): time = parsed
            case .failure(.tooLarge): throw refuse("time \(tokens[0].shown) is too large: runs last at most \(TimeLimits.describe(TimeLimits.scenarioTime))")
            case .failure(.finerThanNanoseconds): throw refuse("time \(tokens[0].shown) is finer than a nanosecond: round it to 9 decimal places or fewer")
            case .failure(.notADecimal):
                let unit = tokens[0].count > 1 && tokens[0].last == "s" && tokens[0].first?.isNumber == true
                throw refuse("bad time \"\(tokens[0].shown)\": " + (unit
                    ? "times are plain seconds without a unit (1.5, not 1.5s)"
                    : "each line is TIME NAME, the time in seconds from the start (0, 1.5)"))
            }
            guard time >= previous else {
                throw refuse("time \(tokens[0].shown) is earlier than the line before (\(previous.secondsText) s): list the events in time order")
            }
            previous = time
            let words = tokens.dropFirst().first == "event" ? tokens.dropFirst(2) : tokens.dropFirst()
            guard words.count == 1, let name = words.first else {
                throw refuse(words.isEmpty
                    ? "an event name is missing after the time"
                    : "one event a line, TIME NAME: this one has \(words.count) words after the time")
            }
            steps.append(Step(time: time, event: String(name), line: line))
        }
        return ExternalEventScript(file: file, steps: steps)
    }

    /// The script in the file at `path`.
    public static func read(file path: String) throws(SCXMLError) -> ExternalEventScript {
        let text: String
        do {
            text = try TextFile.contents(path: path, limit: maximumBytes)
        } catch {
            throw .unreadable(file: path, reason: error.reason)
        }
        return try parse(text, file: path)
    }

    /// Every event name the script sends, once each, in the order first sent.
    public var eventNames: [String] {
        var seen: Set<String> = []
        return steps.map(\.event).filter { seen.insert($0).inserted }
    }

    /// Refuses an event no transition of `document` takes (a misspelt name would otherwise be
    /// queued and silently discarded, as SCXML discards an event nothing answers).
    func check(against document: SCXMLDocument) throws(SCXMLError) {
        let descriptors = document.states.flatMap { $0.transitions.flatMap(\.events) }
        for step in steps where !descriptors.contains(where: { $0.matches(step.event) }) {
            let taken = Array(Set(descriptors.map(\.description))).sorted()
            let known = taken.isEmpty ? "none of its transitions takes an event" : "its transitions take \(taken.joined(separator: ", "))"
            throw .malformed(
                file: file, line: step.line, element: nil,
                reason: "no transition of \(document.file) takes \(step.event.shown) (\(known))")
        }
    }
}
