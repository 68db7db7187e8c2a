@testable import ControllerSCXML
import Testing

/// The W3C test language's `conf:` names, expanded as confEcma.xsl defines them, into
/// expressions the integer datamodel reads.
@Suite("The W3C test language (conf:)")
struct TestLanguageTests {
    static let conf = TestLanguage.namespace
    static let scxmlNamespace = TestLanguage.scxmlNamespace

    func expand(_ attributes: [ParsedAttribute], children: [ParsedChild] = []) throws -> ParsedElement {
        let element = ParsedElement(name: "transition", namespace: Self.scxmlNamespace, attributes: attributes, children: children, line: 7)
        return try TestLanguage.expand(element, datamodel: "integer", file: "t.txml")
    }

    func attribute(_ name: String, _ value: String) -> ParsedAttribute { ParsedAttribute(name: name, namespace: Self.conf, value: value) }

    @Test("attributes", arguments: [
        ("targetpass", "", "target", "pass"),
        ("targetfail", "", "target", "fail"),
        ("datamodel", "", "datamodel", "integer"),
        ("id", "1", "id", "Var1"),
        ("location", "2", "location", "Var2"),
        ("expr", "0", "expr", "0"),
        ("varExpr", "3", "expr", "Var3"),
        ("idVal", "1=1", "cond", "Var1 == 1"),
        ("idVal", "2<=10", "cond", "Var2 <= 10"),
        ("idVal", "4>0", "cond", "Var4 > 0"),
        ("varIdVal", "1=2", "cond", "Var1 == Var2"),
        ("idSomeVal", "1", "cond", "Var1 == 123"),
        ("inState", "s1", "cond", "In('s1')"),
        ("true", "", "cond", "true"),
        ("false", "", "cond", "false"),
        ("delay", "1", "delay", "1s"),
        ("delay", ".5", "delay", ".5s"),
    ])
    func attributes(_ name: String, _ value: String, _ expectedName: String, _ expectedValue: String) throws {
        let expanded = try expand([attribute(name, value)])
        #expect(expanded.attributes == [ParsedAttribute(name: expectedName, value: expectedValue)])
    }

    @Test("elements: pass, fail, incrementID, sumVars, someInlineVal")
    func elements() throws {
        func conf(_ name: String, _ attributes: [ParsedAttribute] = []) -> ParsedChild {
            .element(ParsedElement(name: name, namespace: Self.conf, attributes: attributes, line: 3))
        }
        let expanded = try expand([], children: [
            conf("pass"), conf("fail"),
            conf("incrementID", [ParsedAttribute(name: "id", value: "1")]),
            conf("sumVars", [ParsedAttribute(name: "id1", value: "1"), ParsedAttribute(name: "id2", value: "2")]),
            conf("someInlineVal"),
        ])
        #expect(expanded.elements.map(\.name) == ["final", "final", "assign", "assign"])
        #expect(expanded.elements.allSatisfy { $0.namespace == Self.scxmlNamespace })
        #expect(expanded.elements[0].attribute("id") == "pass")
        #expect(expanded.elements[1].attribute("id") == "fail")
        #expect(expanded.elements[2].attribute("location") == "Var1" && expanded.elements[2].attribute("expr") == "Var1 + 1")
        #expect(expanded.elements[3].attribute("expr") == "Var1 + Var2")
        #expect(expanded.children.last == .text("123"))
    }

    @Test("what the integer datamodel cannot mean is refused by line and name")
    func refusals() {
        #expect(throws: SCXMLError.self) { try expand([attribute("eventName", "")]) }
        do {
            _ = try expand([], children: [.element(ParsedElement(name: "script", namespace: Self.conf, line: 9))])
            Issue.record("conf:script was expanded")
        } catch {
            guard case .unsupported(let file, let line, let element, _) = error as? SCXMLError else {
                Issue.record("\(error)")
                return
            }
            #expect(file == "t.txml" && line == 9 && element == "conf:script")
        }
    }

    @Test("a conf: attribute in a .scxml is refused, not ignored")
    func confOutsideTxml() {
        let error = refusal(scxml(#"<state id="a"><transition event="e" conf:targetpass=""/></state><final id="pass"/>"#))
        guard case .unsupported(_, let line, "transition", let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(line == 2 && reason.contains(".txml"))
    }
}
