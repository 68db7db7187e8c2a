import ControllerFSM
import ControllerHost

/// What `scxml-run` prints of a run, as lines without their line breaks: the result line, and
/// with a trace each macrostep before it; as text, or as JSON records (`--json`).
public enum SCXMLRunLines {
    /// `FILE: pass`, `FILE: fail (ended in S)` or `FILE: error: REASON`, preceded, when the run
    /// was traced, by its macrosteps:
    ///
    /// ```
    /// door.scxml at 1 s: open
    ///   exit closed
    ///   transition (line 4, open)
    ///   enter opening
    ///   log motor: 1
    ///   in opening
    /// ```
    ///
    /// An external event nothing took is followed by `(no transition took it)`.
    public static func text(file: String, report: SCXMLRunReport) -> [String] {
        var lines: [String] = []
        for step in report.steps {
            lines.append("\(file) at \(seconds(step.time)) s: \(step.event ?? "start")")
            if step.items.isEmpty { lines.append("  (no transition took it)") }
            for item in step.items {
                switch item {
                case .exit(let state): lines.append("  exit \(state)")
                case .transition(let line, let event): lines.append("  transition (line \(line)\(event.map { ", \($0)" } ?? ", eventless"))")
                case .entry(let state): lines.append("  enter \(state)")
                case .log(let text): lines.append("  log \(text)")
                }
            }
            lines.append("  in \(step.configuration.joined(separator: ", "))")
        }
        lines.append("\(file): \(report.outcome)")
        return lines
    }

    /// One JSON record a step (`"type":"step"`: `t`, `event` — absent for the start —, `exits`,
    /// `transitions` as `{"line","event"}`, `entries`, `log`, `configuration`), then the
    /// result (`"type":"result"`: `outcome` `pass`, `fail` with `endedIn`, or `error` with
    /// `error`), each with `file`.
    public static func json(file: String, report: SCXMLRunReport) -> [String] {
        var lines: [String] = []
        for step in report.steps {
            var exits: [String] = [], entries: [String] = [], logs: [String] = []
            var transitions: [JSONLine] = []
            for item in step.items {
                switch item {
                case .exit(let state): exits.append(state)
                case .entry(let state): entries.append(state)
                case .log(let text): logs.append(text)
                case .transition(let line, let event):
                    var transition = JSONLine().int("line", line)
                    if let event { transition = transition.string("event", event) }
                    transitions.append(transition)
                }
            }
            var record = JSONLine(type: "step").string("file", file).seconds("t", duration(step.time))
            if let event = step.event { record = record.string("event", event) }
            record = record.strings("exits", exits).objects("transitions", transitions).strings("entries", entries)
                .strings("log", logs).strings("configuration", step.configuration)
            lines.append(record.text)
        }
        var result = JSONLine(type: "result").string("file", file)
        switch report.outcome {
        case .pass: result = result.string("outcome", "pass")
        case .fail(let states): result = result.string("outcome", "fail").strings("endedIn", states)
        case .error(let reason): result = result.string("outcome", "error").string("error", reason)
        }
        lines.append(result.int("externalEvents", report.externalEvents).seconds("t", duration(report.time)).text)
        return lines
    }

    private static func duration(_ time: MachineInstant) -> Duration { .nanoseconds(time.nanoseconds) }
    private static func seconds(_ time: MachineInstant) -> String { duration(time).secondsText }
}
