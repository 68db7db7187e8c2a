import ControllerFSM
import ControllerSCXML
import ControllerTestSupport
import Foundation
import Testing

/// A chart that waits for the world, given timed external events (`scxml-run --events`), and
/// traced (`--trace`, `--json`): each macrostep's event, exits, transitions by line, entries,
/// `<log>` lines and configuration, in order; a scripted event joins the external queue at its
/// time, after the delayed sends due then; a misspelt event or a bad line is refused by line.
@Suite("External events and the trace")
struct ExternalEventTraceTests {
    /// A door: `open` starts the motor (a log line) and a 2 s timer to `open`; `close` closes it
    /// over 2 s; `open` while closing reopens.
    static let door = scxml("""
        <state id="closed">
          <transition event="open" target="opening"/>
        </state>
        <state id="opening">
          <onentry><log label="motor" expr="1"/><send event="opened" delay="2s"/></onentry>
          <transition event="opened" target="open"/>
        </state>
        <state id="open">
          <transition event="close" target="closing"/>
        </state>
        <state id="closing">
          <onentry><send event="closedLimit" delay="2s"/></onentry>
          <transition event="closedLimit" target="closed"/>
          <transition event="open" target="opening"/>
        </state>
        """, attributes: #"initial="closed" datamodel="null""#)

    static func traced(_ chart: String, events: String) throws -> SCXMLRunReport {
        let script = try ExternalEventScript.parse(events, file: "events.txt")
        return try SCXMLRunner.run(SCXMLRunner.document(text: chart, file: "door.scxml"), options: SCXMLRunOptions(events: script, trace: true))
    }

    @Test("each scripted event at its time, the door's delayed sends between them; every macrostep traced in order")
    func traceOfAScriptedRun() throws {
        let report = try Self.traced(Self.door, events: """
            # open, then close once open
            1     open
            5     event close
            """)
        #expect(report.outcome == .fail(endedIn: ["closed"]))
        #expect(report.externalEvents == 4)
        #expect(report.time == MachineInstant.zero + .seconds(7))
        #expect(SCXMLRunLines.text(file: "door.scxml", report: report) == [
            "door.scxml at 0 s: start", "  enter closed", "  in closed",
            "door.scxml at 1 s: open", "  exit closed", "  transition (line 3, open)", "  enter opening", "  log motor: 1", "  in opening",
            "door.scxml at 3 s: opened", "  exit opening", "  transition (line 7, opened)", "  enter open", "  in open",
            "door.scxml at 5 s: close", "  exit open", "  transition (line 10, close)", "  enter closing", "  in closing",
            "door.scxml at 7 s: closedLimit", "  exit closing", "  transition (line 14, closedLimit)", "  enter closed", "  in closed",
            "door.scxml: fail (ended in closed)",
        ])
    }

    @Test("a scripted event due with a delayed send comes after it; one nothing takes is said so")
    func sameInstant() throws {
        // At 3 s the door's own `opened` (sent at 1 s, 2 s delay) comes first; the scripted
        // `open` then finds the door open, where nothing takes it.
        let report = try Self.traced(Self.door, events: "1 open\n3 open\n")
        let lines = SCXMLRunLines.text(file: "door.scxml", report: report)
        #expect(Array(lines.dropLast().suffix(8)) == [
            "door.scxml at 3 s: opened", "  exit opening", "  transition (line 7, opened)", "  enter open", "  in open",
            "door.scxml at 3 s: open", "  (no transition took it)", "  in open",
        ], "\(lines)")
    }

    @Test("JSON: a record a step, then the result, with the file in each")
    func json() throws {
        let report = try Self.traced(Self.door, events: "1 open\n")
        let lines = SCXMLRunLines.json(file: "door.scxml", report: report)
        #expect(lines == [
            #"{"type":"step","file":"door.scxml","t":0,"exits":[],"transitions":[],"entries":["closed"],"log":[],"configuration":["closed"]}"#,
            #"{"type":"step","file":"door.scxml","t":1,"event":"open","exits":["closed"],"transitions":[{"line":3,"event":"open"}],"entries":["opening"],"log":["motor: 1"],"configuration":["opening"]}"#,
            #"{"type":"step","file":"door.scxml","t":3,"event":"opened","exits":["opening"],"transitions":[{"line":7,"event":"opened"}],"entries":["open"],"log":[],"configuration":["open"]}"#,
            #"{"type":"result","file":"door.scxml","outcome":"fail","endedIn":["open"],"externalEvents":2,"t":3}"#,
        ])
    }

    @Test("an eventless transition and a parallel state's regions in the trace")
    func eventlessAndRegions() throws {
        let chart = scxml("""
            <parallel id="p">
              <state id="a"><state id="a1"><transition event="go" target="a2"/></state><state id="a2"/></state>
              <state id="b"><state id="b1"><transition cond="In('a2')" target="b2"/></state><state id="b2"/></state>
            </parallel>
            """)
        let report = try Self.traced(chart, events: "0.5 go")
        #expect(report.steps.map(\.configuration) == [["a1", "b1"], ["a2", "b2"]])
        #expect(report.steps.last?.items == [
            .exit("a1"), .transition(line: 3, event: "go"), .entry("a2"),
            .exit("b1"), .transition(line: 4, event: nil), .entry("b2"),
        ])
    }

    @Test("an event no transition takes is refused naming the events file's line and what the chart takes")
    func misspeltEvent() throws {
        let script = try ExternalEventScript.parse("1 open\n2 opne\n", file: "events.txt")
        let document = try SCXMLRunner.document(text: Self.door, file: "door.scxml")
        #expect(throws: SCXMLError.malformed(
            file: "events.txt", line: 2, element: nil,
            reason: "no transition of door.scxml takes opne (its transitions take close, closedLimit, open, opened)")) {
            try SCXMLRunner.run(document, options: SCXMLRunOptions(events: script))
        }
    }

    @Test(
        "a bad line is refused by its number, saying what to write",
        arguments: [
            ("1s open", 1, #"bad time "1s": times are plain seconds without a unit (1.5, not 1.5s)"#),
            ("open", 1, #"bad time "open": each line is TIME NAME, the time in seconds from the start (0, 1.5)"#),
            ("# c\n2 open\n1 close", 3, "time 1 is earlier than the line before (2 s): list the events in time order"),
            ("1", 1, "an event name is missing after the time"),
            ("1 event", 1, "an event name is missing after the time"),
            ("1 open close", 1, "one event a line, TIME NAME: this one has 2 words after the time"),
            ("0.0000000001 open", 1, "time 0.0000000001 is finer than a nanosecond: round it to 9 decimal places or fewer"),
        ])
    func badLines(text: String, line: Int, reason: String) {
        #expect(throws: SCXMLError.malformed(file: "events.txt", line: line, element: nil, reason: reason)) {
            try ExternalEventScript.parse(text, file: "events.txt")
        }
    }

    @Test("comments, blank lines, tabs and `event` are read; equal times keep their order")
    func goodLines() throws {
        let script = try ExternalEventScript.parse("\n# start\n0\topen  # first\n\n0 event close\r\n1.25 open\n", file: "e")
        #expect(script.steps.map(\.event) == ["open", "close", "open"])
        #expect(script.steps.map(\.time) == [.zero, .zero, .milliseconds(1250)])
        #expect(script.steps.map(\.line) == [3, 5, 6])
        #expect(script.eventNames == ["open", "close"])
    }

    @Test("docs/reference/scxml.md's door chart, events and trace are what scxml-run gives")
    func documentedTrace() throws {
        let text = try String(contentsOfFile: repositoryPath("docs/reference/scxml.md"), encoding: .utf8)
        func block(after marker: String, fence: String) throws -> [String] {
            let start = try #require(text.range(of: marker), "no \(marker) in docs/reference/scxml.md")
            let open = try #require(text.range(of: fence + "\n", range: start.upperBound..<text.endIndex))
            let close = try #require(text.range(of: "\n```", range: open.upperBound..<text.endIndex))
            return text[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        let chart = try block(after: "motor and a 2-second timer, `door.scxml`:", fence: "```xml").joined(separator: "\n")
        let session = try block(after: "$ cat events.txt", fence: "")
        // The session: the events file's lines, the command, then its output.
        let command = try #require(session.firstIndex { $0.hasPrefix("$ swift run scxml-run") })
        let shownEvents = Array(session[..<command])
        let script = try ExternalEventScript.parse(shownEvents.joined(separator: "\n"), file: "events.txt")
        let report = try SCXMLRunner.run(SCXMLRunner.document(text: chart, file: "door.scxml"), options: SCXMLRunOptions(events: script, trace: true))
        #expect(SCXMLRunLines.text(file: "door.scxml", report: report) == Array(session[(command + 1)...]))
    }
}
