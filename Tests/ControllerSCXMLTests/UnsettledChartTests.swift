import ControllerFSM
import ControllerSCXML
import ControllerTestSupport
import Testing

/// Charts whose run-to-completion step never ends (the audit's three, and their neighbours).
/// Where the loop is certain — content that cannot fail, transitions without a condition — the
/// loader refuses the chart, naming the rows; where a condition hides it, the run ends at the
/// core's bound with an error naming the cycle. Neither spins for ever.
@Suite("Charts that never settle", .timeLimit(.minutes(Emulation.timeLimitMinutes(10))))
struct UnsettledChartTests {
    /// The error a run ends with; a failure is recorded when it ends otherwise.
    func error(of body: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> String {
        let report = run(scxml(body))
        guard case .error(let reason) = report.outcome else {
            Issue.record("ended \(report.outcome), not an error", sourceLocation: sourceLocation)
            return ""
        }
        return reason
    }

    /// `cond` on the looping transitions: empty for the certain loop, a condition the loader
    /// cannot see through for the one only the run finds.
    static let conditions = ["", #" cond="1 == 1""#]

    @Test("an entry raising the event that re-enters its state", arguments: conditions)
    func entryRaisesItsReentry(cond: String) {
        let reason = error(of: """
            <state id="s"><onentry><raise event="again"/></onentry><transition event="again"\(cond) target="s"/></state>
            <final id="pass"/>
            """)
        #expect(reason.contains("s --again--> s"), "\(reason)")
        #expect(reason.contains(cond.isEmpty ? "never settles" : "MachineLimits.maximumInternalEvents"), "\(reason)")
    }

    @Test("a targetless row raising its own event twice", arguments: conditions)
    func targetlessRowDoublesItsEvent(cond: String) {
        let reason = error(of: """
            <state id="s">
              <onentry><raise event="e"/></onentry>
              <transition event="e"\(cond)><raise event="e"/><raise event="e"/></transition>
            </state>
            <final id="pass"/>
            """)
        #expect(reason.contains("s --e--> s"), "\(reason)")
        if cond.isEmpty {
            #expect(reason.contains("queue more events than they take"), "\(reason)")
            #expect(reason.components(separatedBy: "s --e--> s").count == 2, "the step named once: \(reason)")
        } else {
            #expect(reason.contains("internal queue overflowed"), "the overflow said beside the bound: \(reason)")
        }
    }

    @Test("a final state whose done.state event re-enters its parent", arguments: conditions)
    func doneEventReentersItsParent(cond: String) {
        let reason = error(of: """
            <state id="x" initial="f">
              <final id="f"/>
              <transition event="done.state.x"\(cond) target="x"/>
            </state>
            <final id="pass"/>
            """)
        #expect(reason.contains("f --done.state.x--> f"), "\(reason)")
    }

    @Test("two states raising each other's events", arguments: conditions)
    func pingPong(cond: String) {
        let reason = error(of: """
            <state id="a"><onentry><raise event="ping"/></onentry><transition event="ping"\(cond) target="b"/></state>
            <state id="b"><onentry><raise event="pong"/></onentry><transition event="pong"\(cond) target="a"/></state>
            <final id="pass"/>
            """)
        #expect(reason.contains("a --ping--> b") && reason.contains("b --pong--> a"), "\(reason)")
    }

    @Test("a chart that raises many events but settles is neither refused nor stopped")
    func longButFinite() {
        let report = run(scxml("""
            <datamodel><data id="n" expr="0"/></datamodel>
            <state id="s">
              <onentry><raise event="step"/></onentry>
              <transition event="step" cond="n &lt; 100"><assign location="n" expr="n + 1"/><raise event="step"/></transition>
              <transition event="step" target="pass"/>
            </state>
            <final id="pass"/>
            """))
        #expect(report.outcome == .pass, "\(report.outcome)")
    }
}
