@testable import ControllerSCXML
import Testing

/// The loader never skips what it does not read: every kind of node libxml2's tree has is read,
/// passed over or refused by file and line. Comments and processing instructions are the only
/// kinds passed over, white space the only text; entity references and DOCTYPEs are refused
/// (substituting would load external entities too), CDATA sections are text.
@Suite("Every node kind read, passed over or refused")
struct NodeKindTests {
    /// Every xmlElementType of libxml2's tree.h, with what the loader does with it.
    static let expected: [(XMLNodeKind, String)] = [
        (.element, "read"), (.attribute, "refused"), (.text, "read"), (.cdataSection, "read"),
        (.entityReference, "refused"), (.entity, "refused"), (.processingInstruction, "passed over"),
        (.comment, "passed over"), (.document, "refused"), (.documentType, "refused"), (.documentFragment, "refused"),
        (.notation, "refused"), (.htmlDocument, "refused"), (.dtd, "refused"), (.elementDeclaration, "refused"),
        (.attributeDeclaration, "refused"), (.entityDeclaration, "refused"), (.namespaceDeclaration, "refused"),
        (.xincludeStart, "refused"), (.xincludeEnd, "refused"), (.docbDocument, "refused"),
    ]

    static func name(_ treatment: XMLNodeKind.Treatment) -> String {
        switch treatment {
        case .read: "read"
        case .passedOver: "passed over"
        case .refused: "refused"
        }
    }

    @Test("each of libxml2's 21 node kinds has its treatment, and a kind it does not know is refused")
    func everyKind() {
        #expect(Self.expected.map(\.0) == XMLNodeKind.allCases)
        #expect(XMLNodeKind.allCases.map(\.rawValue) == Array(1...21))
        for (kind, treatment) in Self.expected {
            #expect(Self.name(kind.treatment) == treatment, "\(kind)")
        }
        for unknown: Int32 in [0, 22, -1] {
            #expect(Self.name(XMLNodeKind.treatment(ofKind: unknown)) == "refused")
        }
    }

    static let open = "<scxml xmlns=\"http://www.w3.org/2005/07/scxml\" version=\"1.0\">\n"
    /// A document whose datum d is given by `data` (after `<data id="d"`) and that passes when d is 15.
    static func fifteen(_ data: String, prolog: String = "") -> String {
        prolog + open + "<datamodel>\(data)</datamodel>\n<state id=\"s\"><transition cond=\"d == 15\" target=\"pass\"/>"
            + "<transition target=\"fail\"/></state><final id=\"pass\"/><final id=\"fail\"/></scxml>"
    }

    struct Refused: Sendable, CustomTestStringConvertible {
        var what: String
        var text: String
        var line: Int
        var element: String?
        var says: String
        var testDescription: String { what }
    }

    static let refused: [Refused] = [
        Refused(what: "an internal entity in content", text: "<?xml version=\"1.0\"?>\n<!DOCTYPE scxml [ <!ENTITY five \"5\"> ]>\n"
                    + fifteen("<data id=\"d\">1&five;</data>"), line: 2, element: "!DOCTYPE", says: "a DOCTYPE is not read"),
        Refused(what: "an external entity in content", text: "<!DOCTYPE scxml [\n<!ENTITY ext SYSTEM \"file:///etc/hostname\"> ]>\n"
                    + fifteen("<data id=\"d\">&ext;</data>"), line: 1, element: "!DOCTYPE", says: "neither its entities"),
        Refused(what: "an entity in an attribute", text: "<!--\n-->\n<!DOCTYPE scxml [ <!ENTITY five \"5\"> ]>\n"
                    + fifteen("<data id=\"d\" expr=\"1&five;\"/>"), line: 3, element: "!DOCTYPE", says: "a DOCTYPE is not read"),
        Refused(what: "a DOCTYPE naming an external DTD", text: "<!DOCTYPE scxml SYSTEM \"scxml.dtd\">\n" + fifteen("<data id=\"d\" expr=\"15\"/>"),
                line: 1, element: "!DOCTYPE", says: "a DOCTYPE is not read"),
        Refused(what: "a DOCTYPE that declares nothing", text: "<!DOCTYPE scxml>\n" + fifteen("<data id=\"d\" expr=\"15\"/>"),
                line: 1, element: "!DOCTYPE", says: "a DOCTYPE is not read"),
        Refused(what: "an undeclared entity (libxml2's refusal)", text: fifteen("<data id=\"d\">\n1&five;</data>"),
                line: 3, element: nil, says: "Entity 'five' not defined"),
        Refused(what: "text in a <state>", text: open + "<state id=\"s\">\nnot read</state></scxml>", line: 2, element: "state", says: "text inside a <state> is not read"),
        Refused(what: "a CDATA section in a <state>", text: open + "<state id=\"s\"><![CDATA[x]]></state></scxml>", line: 2, element: "state", says: "is not read (\"x\")"),
        Refused(what: "text in <scxml>", text: open + "stray<state id=\"s\"/></scxml>", line: 1, element: "scxml", says: "text inside a <scxml>"),
        Refused(what: "text in a <datamodel>", text: open + "<datamodel>x</datamodel><state id=\"s\"/></scxml>", line: 2, element: "datamodel", says: "text inside"),
        Refused(what: "text in an <onentry>", text: open + "<state id=\"s\"><onentry>x</onentry></state></scxml>", line: 2, element: "onentry", says: "text inside"),
        Refused(what: "text in a <transition>", text: open + "<state id=\"s\"><transition event=\"e\">x</transition></state></scxml>", line: 2, element: "transition", says: "text inside"),
        Refused(what: "text in a <raise>", text: open + "<state id=\"s\"><onentry><raise event=\"e\">x</raise></onentry></state></scxml>", line: 2, element: "raise", says: "text inside"),
        Refused(what: "text in a <log>", text: open + "<state id=\"s\"><onentry><log expr=\"1\">x</log></onentry></state></scxml>", line: 2, element: "log", says: "text inside"),
        Refused(what: "text in a <send>", text: open + "<state id=\"s\"><onentry><send event=\"e\">x</send></onentry></state></scxml>", line: 2, element: "send", says: "text inside"),
        Refused(what: "text in an <if>", text: open + "<state id=\"s\"><onentry><if cond=\"true\">x</if></onentry></state></scxml>", line: 2, element: "if", says: "text inside"),
        Refused(what: "text in an <else>", text: open + "<state id=\"s\"><onentry><if cond=\"true\"><else>x</else></if></onentry></state></scxml>", line: 2, element: "else", says: "is empty"),
        Refused(what: "an element in a <raise>", text: open + "<state id=\"s\"><onentry><raise event=\"e\">\n<log/></raise></onentry></state></scxml>", line: 3, element: "log", says: "a <raise> holds nothing"),
        Refused(what: "an element in a <data>", text: open + "<datamodel><data id=\"d\">\n<v>1</v></data></datamodel><state id=\"s\"/></scxml>", line: 3, element: "v", says: "elements inside"),
    ]

    @Test("refused by file and line", arguments: refused)
    func refusals(_ refused: Refused) {
        let error = ControllerSCXMLTests.refusal(refused.text, file: "kinds.scxml")
        switch error {
        case .unsupported("kinds.scxml", let line, let element, let reason)?:
            #expect(line == refused.line && element == refused.element && reason.contains(refused.says), "\(error!)")
        case .malformed("kinds.scxml", let line, let element, let reason)?:
            #expect(line == refused.line && element == refused.element && reason.contains(refused.says), "\(error!)")
        default:
            Issue.record("\(refused.what): \(String(describing: error))")
        }
    }

    @Test("read: text and CDATA in <data>, character references, predefined entities")
    func read() {
        for data in ["<data id=\"d\">15</data>", "<data id=\"d\"><![CDATA[15]]></data>", "<data id=\"d\">1<![CDATA[5]]></data>",
                     "<data id=\"d\" expr=\"1&#53;\"/>", "<data id=\"d\">&#x31;5</data>", "<data id=\"d\" expr=\"16 &#x2D; 1\"/>"] {
            #expect(run(Self.fifteen(data)).outcome == .pass, "\(data)")
        }
        let compared = Self.open + "<datamodel><data id=\"d\" expr=\"14\"/></datamodel><state id=\"s\"><transition cond=\"d &lt; 15 &amp;&amp; d &gt; 13\" target=\"pass\"/>"
            + "<transition target=\"fail\"/></state><final id=\"pass\"/><final id=\"fail\"/></scxml>"
        #expect(run(compared).outcome == .pass)
    }

    @Test("passed over: comments, processing instructions and white space, wherever they are")
    func passedOver() {
        let text = "<?xml version=\"1.0\"?>\n<!-- before -->\n<?tool before?>\n" + Self.open
            + "<!-- in scxml --><?tool in?>\n  <datamodel> <!-- c --> <?p?> <data id=\"d\">1<!-- inside a value -->5</data>\n</datamodel>\n"
            + "<state id=\"s\">\n\t<?tool x?><!-- c --><onentry> <log expr=\"d\"> </log> </onentry>\r\n"
            + "<transition cond=\"d == 15\" target=\"pass\"> <!-- c --> </transition><transition target=\"fail\"/></state>"
            + "<final id=\"pass\"/><final id=\"fail\"/></scxml>\n<!-- after --><?tool after?>\n"
        #expect(run(text).outcome == .pass)
    }
}
