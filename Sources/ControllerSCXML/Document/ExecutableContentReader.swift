import ControllerHost

/// Reads the executable content of a transition, `<onentry>`, `<onexit>` or `<if>` branch into
/// ops: `<raise>`, `<send>` (to the session or `#_internal`, a literal delay, an id),
/// `<cancel>`, `<assign>`, `<if>`/`<elseif>`/`<else>` and `<log>`. Anything else is refused by
/// line and element.
struct ExecutableContentReader {
    let file: String
    /// The one event I/O processor a `<send type=…>` may name: SCXML's own.
    static let scxmlProcessorTypes: Set<String> = ["http://www.w3.org/TR/scxml/#SCXMLEventProcessor", "scxml"]

    func ops(_ container: ParsedElement) throws(SCXMLError) -> [ExecutableOp] {
        try refuseText(in: container)
        return try ops(of: container.elements, depth: 0)
    }

    private func ops(of elements: [ParsedElement], depth: Int) throws(SCXMLError) -> [ExecutableOp] {
        var result: [ExecutableOp] = []
        var index = 0
        while index < elements.count {
            let element = elements[index]
            index += 1
            guard element.namespace == TestLanguage.scxmlNamespace else {
                throw unsupported(element, "an element outside the SCXML namespace (\(element.namespace?.shown ?? "no namespace")) is not executable content")
            }
            switch element.name {
            case "raise":
                try checkAttributes(element, allowed: ["event"])
                try requireEmpty(element)
                result.append(.raise(event: try eventName(element), line: element.line))
            case "send":
                result.append(.send(try send(element)))
            case "cancel":
                try checkAttributes(element, allowed: ["sendid"])
                try requireEmpty(element)
                guard let id = element.attribute("sendid"), !id.isEmpty else {
                    throw malformed(element, "a <cancel> names the id of the <send> it cancels (sendid=)")
                }
                result.append(.cancel(sendID: id, line: element.line))
            case "assign":
                try checkAttributes(element, allowed: ["location", "expr"])
                guard let location = element.attribute("location") else { throw malformed(element, "an <assign> names its location") }
                let text = String(element.text.trimmingWhitespace)
                if !element.elements.isEmpty { throw unsupported(element, "an <assign> with elements inside needs an XML datamodel") }
                guard let expr = element.attribute("expr") ?? (text.isEmpty ? nil : text) else {
                    throw malformed(element, "an <assign> gives its value with expr= or as its content")
                }
                result.append(.assign(location: location, expr: expr, line: element.line))
            case "log":
                try checkAttributes(element, allowed: ["label", "expr"])
                try requireEmpty(element)
                result.append(.log(label: element.attribute("label"), expr: element.attribute("expr"), line: element.line))
            case "if":
                guard depth < SCXMLLimits.maximumIfDepth else {
                    throw unsupported(element, "<if> nested deeper than \(SCXMLLimits.maximumIfDepth)")
                }
                result.append(.branches(try branches(element, depth: depth)))
            case "elseif", "else":
                throw malformed(element, "<\(element.name.shown)> belongs directly inside an <if>")
            case "script", "foreach":
                throw unsupported(element, "<\(element.name.shown)> needs a scripting datamodel; the integer datamodel runs raise, send, cancel, assign, if and log")
            default:
                throw unsupported(element, "<\(element.name.shown)> is not executable content this loader runs (raise, send, cancel, assign, if/elseif/else, log)")
            }
        }
        return result
    }

    /// `<if>`'s content up to its first `<elseif>` or `<else>`, then each of those's.
    private func branches(_ element: ParsedElement, depth: Int) throws(SCXMLError) -> [ConditionalBranch] {
        try checkAttributes(element, allowed: ["cond"])
        guard let cond = element.attribute("cond") else { throw malformed(element, "an <if> has a cond") }
        try refuseText(in: element)
        var branches: [(cond: String?, line: Int, elements: [ParsedElement])] = [(cond, element.line, [])]
        for child in element.elements {
            if child.namespace == TestLanguage.scxmlNamespace && (child.name == "elseif" || child.name == "else") {
                if branches.last!.cond == nil {
                    throw malformed(child, "nothing may follow the <else> of an <if>")
                }
                if child.name == "elseif" {
                    try checkAttributes(child, allowed: ["cond"])
                    guard let cond = child.attribute("cond") else { throw malformed(child, "an <elseif> has a cond") }
                    branches.append((cond, child.line, []))
                } else {
                    try checkAttributes(child, allowed: [])
                    branches.append((nil, child.line, []))
                }
                if !child.elements.isEmpty || child.strayText != nil {
                    throw malformed(child, "<\(child.name.shown)/> is empty: what follows it is its branch")
                }
            } else {
                branches[branches.count - 1].elements.append(child)
            }
        }
        var result: [ConditionalBranch] = []
        for branch in branches {
            result.append(ConditionalBranch(cond: branch.cond, content: try ops(of: branch.elements, depth: depth + 1), line: branch.line))
        }
        return result
    }

    private func send(_ element: ParsedElement) throws(SCXMLError) -> SendOp {
        let expressions = ["eventexpr", "targetexpr", "typeexpr", "delayexpr", "idlocation", "namelist"]
        if let expression = expressions.first(where: { element.attribute($0) != nil }) {
            throw unsupported(element, "\(expression)= needs values the integer datamodel does not have; write the literal attribute (event, target, type, delay, id)")
        }
        try checkAttributes(element, allowed: ["event", "target", "type", "delay", "id"])
        if let inner = element.elements.first {
            throw unsupported(inner, "<\(inner.name.shown)> in a <send> gives the event data, which the integer datamodel cannot carry")
        }
        try refuseText(in: element)
        // SCXML 6.2.4: a type or target the processor does not take is an error when the send
        // runs (error.execution), a target it cannot reach one too (error.communication); the
        // document is not refused for them.
        let target: SendOp.Target
        if let type = element.attribute("type"), !Self.scxmlProcessorTypes.contains(type) {
            target = .invalid(reason: "<send> at line \(element.line): type=\"\(type.shown)\" is not an event processor this runtime has (only SCXML's own)")
        } else {
            switch element.attribute("target") {
            case nil: target = .session
            case "#_internal": target = .internal
            case let other? where other.hasPrefix("#_"):
                target = .unreachable(other)
            case let other?:
                target = .invalid(reason: "<send> at line \(element.line): target=\"\(other.shown)\" is not a target SCXML's event processor takes (#_internal, #_scxml_ID, #_parent, #_INVOKEID)")
            }
        }
        var delay: Int64 = 0
        if let text = element.attribute("delay") {
            guard let value = SCXMLDelay.nanoseconds(text) else {
                throw malformed(element, "delay=\"\(text.shown)\" is not a duration such as 1s, .5s or 500ms")
            }
            guard value <= SCXMLLimits.maximumDelayNanoseconds else {
                throw unsupported(element, "delay=\"\(text.shown)\" is longer than a day, the longest delay a run waits for")
            }
            delay = value
        }
        return SendOp(event: try eventName(element), target: target, delayNanoseconds: delay, id: element.attribute("id"), line: element.line)
    }

    /// One event name: dot-separated tokens, no spaces, no `*`.
    private func eventName(_ element: ParsedElement) throws(SCXMLError) -> String {
        guard let name = element.attribute("event") else {
            throw malformed(element, "a <\(element.name.shown)> names its event (event=)")
        }
        let valid = !name.isEmpty && !name.hasPrefix(".") && !name.hasSuffix(".") && !name.contains("..")
            && name.allSatisfy { !$0.isWhitespace && $0 != "*" }
        guard valid else { throw malformed(element, "event=\"\(name.shown)\" is not one event name (tokens separated by dots)") }
        return name
    }

    /// Refuses text where SCXML reads none (white space is passed over): only `<data>` and
    /// `<assign>` hold text.
    func refuseText(in element: ParsedElement) throws(SCXMLError) {
        if let text = element.strayText {
            throw malformed(element, "text inside a <\(element.name.shown)> is not read (\"\(text.trimmingWhitespace.shown)\"); only <data> and <assign> hold text")
        }
    }

    /// Refuses anything inside an element SCXML makes empty.
    private func requireEmpty(_ element: ParsedElement) throws(SCXMLError) {
        try refuseText(in: element)
        if let inner = element.elements.first {
            throw malformed(inner, "a <\(element.name.shown)> holds nothing; <\(inner.name.shown)> cannot be inside it")
        }
    }

    /// Refuses an attribute in no namespace that `allowed` does not name (attributes of other
    /// namespaces belong to other tools and are not read).
    func checkAttributes(_ element: ParsedElement, allowed: Set<String>) throws(SCXMLError) {
        if let conf = element.attributes.first(where: { $0.namespace == TestLanguage.namespace }) {
            throw unsupported(element, "conf:\(conf.name.shown) belongs to the W3C test language; name the file .txml so that it is expanded")
        }
        for attribute in element.attributes where attribute.namespace == nil && !allowed.contains(attribute.name) {
            throw unsupported(element, "the attribute \(attribute.name.shown)= is not read by this loader"
                + (allowed.isEmpty ? "" : " (it reads \(allowed.sorted().joined(separator: ", ")))"))
        }
    }

    private func malformed(_ element: ParsedElement, _ reason: String) -> SCXMLError {
        .malformed(file: file, line: element.line, element: element.name, reason: reason)
    }

    private func unsupported(_ element: ParsedElement, _ reason: String) -> SCXMLError {
        .unsupported(file: file, line: element.line, element: element.name, reason: reason)
    }
}
