import ControllerSCXML
import Testing

/// A chart as Qt Creator's SCXML editor saves it: its layout in the editor's namespace
/// (`<qt:editorinfo>`, `qt:` attributes) is passed over and named in one note per namespace, and
/// its `datamodel="ecmascript"` is read with the integer datamodel while its expressions allow,
/// refused by line, saying an ECMAScript datamodel is needed, when one does not.
@Suite("Charts from an editor")
struct EditorChartTests {
    static let qtNamespace = "http://www.qt.io/2015/02/scxml-ext"

    /// A door as the editor writes it: a counter, a guarded transition, the layout everywhere.
    static func door(cond: String = "openings &lt; 3") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" binding="early" xmlns:qt="\(qtNamespace)" name="Door" qt:editorversion="4.11.1" datamodel="ecmascript" initial="closed">
            <qt:editorinfo initialGeometry="-20;-11.27;-20;-20;40;40"/>
            <datamodel>
                <data id="openings" expr="0"/>
            </datamodel>
            <state id="closed">
                <qt:editorinfo scenegeometry="120;150;60;100;120;100" geometry="120;150;-60;-50;120;100">
                    <qt:note>nested inside the editor's own element</qt:note>
                </qt:editorinfo>
                <transition type="external" event="go" target="opening">
                    <assign location="openings" expr="openings + 1"/>
                </transition>
            </state>
            <state id="opening">
                <qt:editorinfo geometry="380;150;-60;-50;120;100"/>
                <onentry><raise event="opened"/></onentry>
                <transition type="external" event="opened" target="pass" cond="\(cond)"/>
            </state>
            <final id="pass"/>
        </scxml>
        """
    }

    @Test("the editor's layout is passed over (what is inside its elements too), one note naming the namespace, the counts and the first line")
    func layoutPassedOver() throws {
        let document = try SCXMLRunner.document(text: Self.door(), file: "door.scxml")
        #expect(document.notes == [
            "door.scxml:2: passed over 3 elements and 1 attribute of the namespace \(Self.qtNamespace) (the first editorversion=): "
                + "markup of another namespace, such as an editor's layout, means nothing to a run",
        ])
        #expect(document.states.map(\.id) == ["closed", "opening", "pass"])
        let script = try ExternalEventScript.parse("1 go", file: "events.txt")
        let report = try SCXMLRunner.run(document, options: SCXMLRunOptions(events: script))
        #expect(report.outcome == .pass, "\(report.outcome)")
        #expect(report.notes == document.notes)
    }

    @Test("a chart without foreign markup has no note")
    func noNote() throws {
        let document = try SCXMLRunner.document(text: scxml(#"<final id="pass"/>"#), file: "plain.scxml")
        #expect(document.notes.isEmpty)
    }

    @Test("the W3C test language's markup outside a .txml is still refused, not passed over")
    func testLanguageNotForeign() {
        let error = refusal(scxml(#"<state id="a"><transition conf:targetpass=""/></state><final id="pass"/>"#), file: "t.scxml")
        #expect(error.map { "\($0)" }?.contains("conf:targetpass belongs to the W3C test language") == true, "\(String(describing: error))")
    }

    @Test("datamodel=\"ecmascript\": an expression the integer datamodel cannot read is refused by line, saying an ECMAScript datamodel is needed")
    func ecmascriptExpression() {
        let error = refusal(Self.door(cond: "openings.length &lt; 3"), file: "door.scxml")
        guard case .unsupported("door.scxml", 18, "transition", let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.hasSuffix("the chart names datamodel=\"ecmascript\", which this loader does not have: it reads the chart's "
            + "expressions with the integer datamodel (integers, In(), true and false), and this one needs an ECMAScript datamodel"), "\(reason)")
    }
}
