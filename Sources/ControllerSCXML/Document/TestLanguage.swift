import ControllerHost

/// The W3C's test language (`.txml`): SCXML with `conf:` attributes and elements standing for
/// datamodel expressions. `expand` rewrites them into plain SCXML for a datamodel, as the W3C's
/// `confEcma.xsl` does for ECMAScript; the expressions it writes (`Var1 == 1`, `Var1 + 1`,
/// `In('s1')`) read the same in the integer datamodel and in ECMAScript.
///
/// Only the `conf:` names a datamodel of integers can mean are expanded; the others (event
/// fields, strings, scripts, arrays, invalid targets…) are refused by line and name.
public enum TestLanguage {
    public static let namespace = "http://www.w3.org/2005/scxml-conformance"
    public static let scxmlNamespace = "http://www.w3.org/2005/07/scxml"
    /// What `conf:someInlineVal` stands for (and `conf:idSomeVal` compares with).
    static let someInlineValue = "123"

    /// `root` with every `conf:` attribute and element expanded, `conf:datamodel` naming
    /// `datamodel`.
    public static func expand(_ root: ParsedElement, datamodel: String, file: String) throws(SCXMLError) -> ParsedElement {
        try expandElement(root, datamodel: datamodel, file: file)
    }

    private static func expandElement(_ element: ParsedElement, datamodel: String, file: String) throws(SCXMLError) -> ParsedElement {
        var result = element
        result.attributes = []
        for attribute in element.attributes {
            if attribute.namespace == namespace {
                result.attributes.append(try expandAttribute(attribute, of: element, datamodel: datamodel, file: file))
            } else {
                result.attributes.append(attribute)
            }
        }
        result.children = []
        for child in element.children {
            switch child {
            case .text:
                result.children.append(child)
            case .element(let inner) where inner.namespace == namespace:
                result.children.append(try expandConfElement(inner, file: file))
            case .element(let inner):
                result.children.append(.element(try expandElement(inner, datamodel: datamodel, file: file)))
            }
        }
        return result
    }

    private static func expandAttribute(
        _ attribute: ParsedAttribute, of element: ParsedElement, datamodel: String, file: String
    ) throws(SCXMLError) -> ParsedAttribute {
        let value = attribute.value
        func plain(_ name: String, _ value: String) -> ParsedAttribute { ParsedAttribute(name: name, value: value) }
        func variable(_ number: String) throws(SCXMLError) -> String {
            guard !number.isEmpty, number.allSatisfy(\.isASCIIDigit) else {
                throw refuseAttribute(element, file, "conf:\(attribute.name.shown)=\"\(value.shown)\" does not name a variable by number")
            }
            return "Var\(number)"
        }
        switch attribute.name {
        // What the W3C's ECMAScript stylesheet writes (confEcma.xsl): a target the event
        // processor does not take, one it cannot reach, a type that is no processor.
        case "illegalTarget": return plain("target", "baz")
        case "unreachableTarget": return plain("target", "#_scxml_foo")
        case "invalidSendType": return plain("type", "27")
        case "targetpass": return plain("target", "pass")
        case "targetfail": return plain("target", "fail")
        case "datamodel": return plain("datamodel", datamodel)
        case "id": return plain("id", try variable(value))
        case "location": return plain("location", try variable(value))
        case "varExpr", "varChildExpr": return plain("expr", try variable(value))
        case "expr": return plain("expr", value)
        case "idVal": return plain("cond", try comparison(value, rightIsVariable: false, element, file))
        case "varIdVal": return plain("cond", try comparison(value, rightIsVariable: true, element, file))
        case "idSomeVal": return plain("cond", "\(try variable(value)) == \(someInlineValue)")
        case "inState": return plain("cond", "In('\(value)')")
        case "true": return plain("cond", "true")
        case "false": return plain("cond", "false")
        // The stylesheet writes delayexpr="'Ns'"; a literal delay means the same.
        case "delay": return plain("delay", "\(value)s")
        default:
            throw refuseAttribute(element, file, "conf:\(attribute.name.shown) needs what the integer datamodel does not have (event fields, strings, "
                + "scripts, arrays, other event processors or invalid values); see confEcma.xsl for what it stands for")
        }
    }

    /// `conf:idVal="1=0"` is `Var1 == 0`; `<`, `<=`, `>`, `>=` stay as they are.
    private static func comparison(_ text: String, rightIsVariable: Bool, _ element: ParsedElement, _ file: String) throws(SCXMLError) -> String {
        let digits = text.prefix(while: \.isASCIIDigit)
        let rest = text.dropFirst(digits.count)
        let operators = ["<=", ">=", "=", "<", ">"]
        guard !digits.isEmpty, let op = operators.first(where: { rest.hasPrefix($0) }) else {
            throw refuseAttribute(element, file, "\"\(text.shown)\" is not a comparison of a variable (NUMBER=VALUE, <, <=, >, >=)")
        }
        let right = String(rest.dropFirst(op.count)).trimmingWhitespace
        guard !right.isEmpty else { throw refuseAttribute(element, file, "\"\(text.shown)\" compares with nothing") }
        return "Var\(digits) \(op == "=" ? "==" : op) \(rightIsVariable ? "Var\(right)" : String(right))"
    }

    private static func expandConfElement(_ element: ParsedElement, file: String) throws(SCXMLError) -> ParsedChild {
        func scxml(_ name: String, _ attributes: [ParsedAttribute]) -> ParsedChild {
            .element(ParsedElement(name: name, namespace: scxmlNamespace, attributes: attributes, line: element.line))
        }
        func variable(_ attribute: String) throws(SCXMLError) -> String {
            guard let number = element.attribute(attribute), !number.isEmpty, number.allSatisfy(\.isASCIIDigit) else {
                throw refuse(element, file, "conf:\(element.name.shown) needs \(attribute)=NUMBER")
            }
            return "Var\(number)"
        }
        switch element.name {
        case "pass": return scxml("final", [ParsedAttribute(name: "id", value: "pass")])
        case "fail": return scxml("final", [ParsedAttribute(name: "id", value: "fail")])
        case "incrementID":
            let name = try variable("id")
            return scxml("assign", [ParsedAttribute(name: "location", value: name), ParsedAttribute(name: "expr", value: "\(name) + 1")])
        case "sumVars":
            let (first, second) = (try variable("id1"), try variable("id2"))
            return scxml("assign", [ParsedAttribute(name: "location", value: first), ParsedAttribute(name: "expr", value: "\(first) + \(second)")])
        case "someInlineVal": return .text(someInlineValue)
        default:
            throw refuse(element, file, "conf:\(element.name.shown) needs what the integer datamodel does not have (strings, scripts, "
                + "arrays, event data or other event processors); see confEcma.xsl for what it stands for")
        }
    }

    /// A `conf:` attribute, named by the element that holds it.
    private static func refuseAttribute(_ element: ParsedElement, _ file: String, _ reason: String) -> SCXMLError {
        .unsupported(file: file, line: element.line, element: element.name, reason: reason)
    }

    private static func refuse(_ element: ParsedElement, _ file: String, _ reason: String) -> SCXMLError {
        .unsupported(file: file, line: element.line, element: "conf:\(element.name)", reason: reason)
    }
}
