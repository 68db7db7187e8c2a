import ControllerFSM
import ControllerSCXML
import Testing

/// The driver's queues and virtual time: the internal queue before the external one, delayed
/// sends in due order (fractional delays too), cancellation by id, and the end of a run.
@Suite("The SCXML driver")
struct DriverTests {
    @Test("internal events (raise, #_internal) run before external ones, each in order sent")
    func queueOrder() {
        let report = run(scxml("""
            <state id="s0">
              <onentry>
                <send event="ext1"/>
                <raise event="int1"/>
                <send event="ext2"/>
                <send event="int2" target="#_internal"/>
              </onentry>
              <transition event="int1" target="s1"/>
              <transition event="*" target="fail"/>
            </state>
            <state id="s1"><transition event="int2" target="s2"/><transition event="*" target="fail"/></state>
            <state id="s2"><transition event="ext1" target="s3"/><transition event="*" target="fail"/></state>
            <state id="s3"><transition event="ext2" target="pass"/><transition event="*" target="fail"/></state>
            <final id="pass"/><final id="fail"/>
            """))
        #expect(report.outcome == .pass)
        #expect(report.externalEvents == 2)
    }

    @Test("delays: .5s before 1s before 1500ms, time ends at the last one")
    func delays() {
        let report = run(scxml("""
            <state id="s0">
              <onentry>
                <send event="c" delay="1500ms"/>
                <send event="b" delay="1s"/>
                <send event="a" delay=".5s"/>
              </onentry>
              <transition event="a" target="s1"/>
              <transition event="*" target="fail"/>
            </state>
            <state id="s1"><transition event="b" target="s2"/><transition event="*" target="fail"/></state>
            <state id="s2"><transition event="c" target="pass"/><transition event="*" target="fail"/></state>
            <final id="pass"/><final id="fail"/>
            """))
        #expect(report.outcome == .pass)
        #expect(report.time == MachineInstant(nanoseconds: 1_500_000_000))
    }

    @Test("cancel removes a delayed send by its id")
    func cancel() {
        let report = run(scxml("""
            <state id="s0">
              <onentry>
                <send id="doomed" event="bad" delay=".5s"/>
                <send event="good" delay="1s"/>
                <cancel sendid="doomed"/>
              </onentry>
              <transition event="good" target="pass"/>
              <transition event="*" target="fail"/>
            </state>
            <final id="pass"/><final id="fail"/>
            """))
        #expect(report.outcome == .pass)
    }

    @Test("nothing more to happen: fail, naming the states the machine ended in")
    func stuck() {
        let report = run(scxml("""
            <parallel id="p">
              <state id="r1"><state id="a"/></state>
              <state id="r2"><state id="b"/></state>
            </parallel>
            <final id="pass"/>
            """))
        #expect(report.outcome == .fail(endedIn: ["a", "b"]))
        #expect(report.outcome.description == "fail (ended in a, b)")
    }

    @Test("a document that keeps sending itself events is stopped as an error")
    func endless() {
        let report = run(scxml("""
            <state id="s0">
              <onentry><send event="again"/></onentry>
              <transition event="again" target="s0"/>
            </state>
            """))
        guard case .error(let reason) = report.outcome else {
            Issue.record("\(report.outcome)")
            return
        }
        #expect(reason.contains("\(SCXMLLimits.maximumExternalEvents)"))
    }

    @Test("<if>/<elseif>/<else>, <log> and done.state")
    func content() {
        let report = run(scxml("""
            <datamodel><data id="x" expr="2"/></datamodel>
            <state id="s0" initial="s01">
              <state id="s01">
                <onentry>
                  <if cond="x == 1"><assign location="x" expr="10"/>
                  <elseif cond="x == 2"/><assign location="x" expr="x + 20"/><log label="x" expr="x"/>
                  <else/><assign location="x" expr="30"/>
                  </if>
                </onentry>
                <transition target="done"/>
              </state>
              <final id="done"/>
              <transition event="done.state.s0" cond="x == 22" target="pass"/>
              <transition event="done.state.s0" target="fail"/>
            </state>
            <final id="pass"/><final id="fail"/>
            """))
        #expect(report.outcome == .pass)
        #expect(report.log == ["x: 22"])
    }

    @Test("a send the processor cannot take raises error.execution and ends its block; one no session answers raises error.communication and the block goes on")
    func sendErrorsAtRunTime() {
        let report = run(scxml("""
            <datamodel><data id="x" expr="0"/></datamodel>
            <state id="s0">
              <onentry>
                <send event="e" target="baz"/>
                <assign location="x" expr="x + 1"/>
              </onentry>
              <onentry>
                <send event="e" type="http://example.com/other"/>
                <assign location="x" expr="x + 10"/>
              </onentry>
              <onentry>
                <send event="e" target="#_parent"/>
                <assign location="x" expr="x + 100"/>
              </onentry>
              <transition event="error.execution" target="s1"/>
              <transition event="*" target="fail"/>
            </state>
            <state id="s1">
              <transition event="error.execution" target="s2"/>
              <transition event="*" target="fail"/>
            </state>
            <state id="s2">
              <transition event="error.communication" cond="x == 100" target="pass"/>
              <transition event="*" target="fail"/>
            </state>
            <final id="pass"/><final id="fail"/>
            """))
        #expect(report.outcome == .pass, "\(report.outcome)")
    }
}
