import ControllerFSM
import ControllerSCXML
import Testing

/// Charts whose run-to-completion step never ends (the audit's three, and their neighbours)
/// end at the core's bound with an error naming the cycle, instead of spinning for ever.
@Suite("Charts that never settle", .timeLimit(.minutes(1)))
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

    @Test("an entry raising the event that re-enters its state")
    func entryRaisesItsReentry() {
        let reason = error(of: """
            <state id="s"><onentry><raise event="again"/></onentry><transition event="again" target="s"/></state>
            <final id="pass"/>
            """)
        #expect(reason.contains("s --again--> s") && reason.contains("MachineLimits.maximumInternalEvents"), "\(reason)")
    }

    @Test("a targetless row raising its own event twice: the bound, and the overflow beside it")
    func targetlessRowDoublesItsEvent() {
        let reason = error(of: """
            <state id="s">
              <onentry><raise event="e"/></onentry>
              <transition event="e"><raise event="e"/><raise event="e"/></transition>
            </state>
            <final id="pass"/>
            """)
        #expect(reason.contains("s --e--> s"), "\(reason)")
        #expect(reason.contains("internal queue overflowed"), "\(reason)")
    }

    @Test("a final state whose done.state event re-enters its parent")
    func doneEventReentersItsParent() {
        let reason = error(of: """
            <state id="x" initial="f">
              <final id="f"/>
              <transition event="done.state.x" target="x"/>
            </state>
            <final id="pass"/>
            """)
        #expect(reason.contains("f --done.state.x--> f"), "\(reason)")
    }

    @Test("two states raising each other's events")
    func pingPong() {
        let reason = error(of: """
            <state id="a"><onentry><raise event="ping"/></onentry><transition event="ping" target="b"/></state>
            <state id="b"><onentry><raise event="pong"/></onentry><transition event="pong" target="a"/></state>
            <final id="pass"/>
            """)
        #expect(reason.contains("a --ping--> b") && reason.contains("b --pong--> a"), "\(reason)")
    }

    @Test("a chart that raises many events but settles is not stopped")
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
