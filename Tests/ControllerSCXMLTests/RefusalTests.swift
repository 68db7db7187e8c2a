import ControllerSCXML
import Testing

/// What the loader does not run, and what is not SCXML, is refused by file, line and element
/// with a sentence saying what to do — never skipped or guessed around.
@Suite("Refusals by file, line and element")
struct RefusalTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var body: String
        var line: Int
        var element: String
        var says: String
        var unsupported = true
        var testDescription: String { element + ": " + says }
    }

    // The body starts on line 2 of the document (see `scxml(_:)`).
    static let cases: [Case] = [
        Case(body: "<state id=\"a\">\n<invoke src=\"x.scxml\"/>\n</state>", line: 3, element: "invoke", says: "another session"),
        Case(body: "<state id=\"a\">\n<onentry>\n<script>x = 1</script></onentry>\n</state>", line: 4, element: "script", says: "scripting datamodel"),
        Case(body: "<state id=\"a\"><onentry>\n<foreach array=\"a\" item=\"i\"/></onentry></state>", line: 3, element: "foreach", says: "scripting"),
        Case(body: "<state id=\"a\"><onentry>\n<send eventexpr=\"x\"/></onentry></state>", line: 3, element: "send", says: "eventexpr"),
        Case(body: "<state id=\"a\"><onentry>\n<send event=\"e\"><param name=\"p\" expr=\"1\"/></send></onentry></state>", line: 3, element: "param", says: "event data"),
        Case(body: "<state id=\"a\">\n<transition event=\"e\" cond=\"_event.name == 'e'\" target=\"a\"/></state>", line: 3, element: "transition", says: "not declared"),
        Case(body: "<datamodel>\n<data id=\"s\" expr=\"'text'\"/></datamodel><state id=\"a\"/>", line: 3, element: "data", says: "no strings"),
        Case(body: "<state id=\"a\">\n<transition event=\"e\" target=\"nowhere\"/></state>", line: 3, element: "transition", says: "no state has the id \"nowhere\"", unsupported: false),
        Case(body: "<state id=\"a\"/>\n<state id=\"a\"/>", line: 3, element: "", says: "two states have the id", unsupported: false),
        Case(body: "<state id=\"a\"><onentry>\n<send event=\"e\" delay=\"soon\"/></onentry></state>", line: 3, element: "send", says: "not a duration", unsupported: false),
        Case(body: "<state id=\"a\">\n<transition event=\"e\" frobnicate=\"1\"/></state>", line: 3, element: "transition", says: "frobnicate"),
        Case(body: "<state id=\"a\">\n<onentry><elseif cond=\"true\"/></onentry></state>", line: 3, element: "elseif", says: "inside an <if>", unsupported: false),
    ]

    @Test("refused", arguments: cases)
    func refused(_ refusal: Case) {
        let error = ControllerSCXMLTests.refusal(scxml(refusal.body), file: "doc.scxml")
        switch error {
        case .unsupported(let file, let line, let element, let reason)? where refusal.unsupported:
            #expect(file == "doc.scxml" && line == refusal.line && element == refusal.element, "\(error!)")
            #expect(reason.contains(refusal.says), "\(error!)")
        case .malformed(let file, let line, let element, let reason)? where !refusal.unsupported:
            #expect(file == "doc.scxml" && line == refusal.line && (element ?? "") == refusal.element, "\(error!)")
            #expect(reason.contains(refusal.says), "\(error!)")
        default:
            Issue.record("expected a refusal at line \(refusal.line), got \(String(describing: error))")
        }
    }

    @Test("a document that is not well-formed names the line libxml2 found")
    func malformedXML() {
        let error = ControllerSCXMLTests.refusal("<scxml xmlns=\"http://www.w3.org/2005/07/scxml\">\n<state id=\"a\">\n</stat></scxml>", file: "bad.scxml")
        guard case .malformed("bad.scxml", 3, nil, let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.contains("mismatch"))
        #expect(error!.description.hasPrefix("bad.scxml:3: "))
    }

    @Test("a missing file is unreadable, with the system's reason")
    func missingFile() {
        let report = SCXMLRunner.run(file: "/nonexistent/x.scxml")
        #expect(report.outcome == .error("/nonexistent/x.scxml: cannot be read: No such file or directory"))
    }

    @Test("another datamodel is named and refused")
    func otherDatamodel() {
        let error = ControllerSCXMLTests.refusal(scxml("<state id=\"a\"/>", attributes: "datamodel=\"xpath\""))
        guard case .unsupported(_, 1, "scxml", let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.contains("\"integer\""))
    }

    @Test("the runtime's refusals name the document's lines")
    func runtimeRefusal() {
        // An unguarded targetless eventless transition would be taken for ever.
        let error = ControllerSCXMLTests.refusal(scxml("<state id=\"a\">\n<transition/>\n</state>"), file: "loop.scxml")
        guard case .refusedByRuntime("loop.scxml", let problems)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(problems.contains { $0.hasPrefix("loop.scxml:3:") }, "\(problems)")
    }
}
