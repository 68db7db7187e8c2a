import ControllerHost

/// Reads an SCXML document's XML (after `TestLanguage.expand` for `.txml`) into an
/// `SCXMLDocument`: the states numbered in document order, targets resolved, executable content
/// as ops. Refuses, by file, line and element, what SCXML does not allow (`.malformed`) and
/// what this loader does not run (`.unsupported`): it never skips an element or an attribute
/// it does not know.
public struct DocumentReader {
    let file: String
    private var states: [DocumentStateNode] = []
    /// Each state's number by its id (the first state of an id; a second one is refused).
    private var stateNumbers: [String: Int] = [:]
    private var data: [DataDeclaration] = []
    private var dataIDs: Set<String> = []
    /// Targets as written, resolved once every id is known: (state, transition or -1 for the
    /// initial, the ids, the line, the element).
    private var pendingTargets: [(state: Int?, transition: Int, ids: [String], line: Int, element: String)] = []

    public static func read(_ root: ParsedElement, file: String) throws(SCXMLError) -> SCXMLDocument {
        var reader = DocumentReader(file: file)
        return try reader.document(root)
    }

    private init(file: String) { self.file = file }

    private mutating func document(_ root: ParsedElement) throws(SCXMLError) -> SCXMLDocument {
        guard root.name == "scxml", root.namespace == TestLanguage.scxmlNamespace else {
            throw SCXMLError.malformed(
                file: file, line: root.line, element: root.name,
                reason: "the root element is not <scxml> in the namespace \(TestLanguage.scxmlNamespace)")
        }
        try checkAttributes(root, allowed: ["version", "initial", "name", "datamodel", "binding"])
        if let binding = root.attribute("binding"), binding != "early" {
            throw unsupported(root, "binding=\"\(binding.shown)\": only early binding (every <data> bound at the start) is supported")
        }
        var topLevel: [Int] = []
        for child in try elements(of: root) {
            switch child.name {
            case "state", "parallel", "final":
                topLevel.append(try readState(child, parent: nil))
            case "datamodel":
                try readDatamodel(child)
            case "script":
                throw unsupported(child, "<script> needs a scripting datamodel; the integer datamodel has no scripts")
            default:
                throw misplaced(child, in: root)
            }
        }
        if topLevel.isEmpty {
            throw SCXMLError.malformed(file: file, line: root.line, element: "scxml", reason: "the document has no state")
        }
        var initial: [Int] = []
        if let attribute = root.attribute("initial") {
            initial = try resolve(ids(attribute), line: root.line, element: "scxml")
        }
        for pending in pendingTargets {
            let targets = try resolve(pending.ids, line: pending.line, element: pending.element)
            guard let state = pending.state else { continue }
            if pending.transition < 0 {
                states[state].initial = targets
            } else {
                states[state].transitions[pending.transition].targets = targets
            }
        }
        let document = SCXMLDocument(
            file: file, name: root.attribute("name"), datamodel: root.attribute("datamodel"), initial: initial,
            states: states, topLevel: topLevel, data: data, line: root.line)
        return document
    }

    // MARK: States

    private mutating func readState(_ element: ParsedElement, parent: Int?) throws(SCXMLError) -> Int {
        let number = states.count
        if number == SCXMLLimits.maximumStates {
            throw SCXMLError.overLimit(
                file: file, line: element.line, element: element.name, limit: "maximumStates", bound: SCXMLLimits.maximumStates,
                what: "the document has too many states", fix: "split it into smaller documents")
        }
        let kind: DocumentStateNode.Kind
        switch element.name {
        case "parallel":
            kind = .parallel
            try checkAttributes(element, allowed: ["id"])
        case "final":
            kind = .final
            try checkAttributes(element, allowed: ["id"])
        case "history":
            try checkAttributes(element, allowed: ["id", "type"])
            switch element.attribute("type") ?? "shallow" {
            case "shallow": kind = .history(deep: false)
            case "deep": kind = .history(deep: true)
            case let other:
                throw malformed(element, "type=\"\(other.shown)\" is neither \"shallow\" nor \"deep\"")
            }
        default:
            kind = .state
            try checkAttributes(element, allowed: ["id", "initial"])
        }
        // SCXML lets a processor name a state without an id; no target can name it.
        let id = element.attribute("id") ?? "_state\(number)"
        if stateNumbers.updateValue(number, forKey: id) != nil {
            throw SCXMLError.malformed(
                file: file, line: element.line, element: nil,
                reason: "two states have the id \"\(id.shown)\"; every state's id is unique")
        }
        states.append(DocumentStateNode(id: id, kind: kind, parent: parent, line: element.line))
        if let parent { states[parent].children.append(number) }
        if case .history = kind { return try readHistory(element, number) }

        var sawInitial = false
        if let initial = element.attribute("initial") {
            guard kind == .state else { throw malformed(element, "only a <state> names an initial state") }
            pendingTargets.append((number, -1, ids(initial), element.line, element.name))
            sawInitial = true
        }
        for child in try elements(of: element) {
            switch (kind, child.name) {
            case (_, "onentry"):
                try checkAttributes(child, allowed: [])
                states[number].onEntry.append(try ExecutableContentReader(file: file).ops(child))
            case (_, "onexit"):
                try checkAttributes(child, allowed: [])
                states[number].onExit.append(try ExecutableContentReader(file: file).ops(child))
            case (.state, "transition"), (.parallel, "transition"):
                try readTransition(child, of: number)
            case (.state, "initial"):
                if sawInitial {
                    throw malformed(child, "\"\(id.shown)\" has an initial state already (an initial= attribute or another <initial>)")
                }
                sawInitial = true
                try readInitial(child, of: number)
            case (.state, "state"), (.state, "parallel"), (.state, "final"), (.state, "history"),
                 (.parallel, "state"), (.parallel, "parallel"), (.parallel, "history"):
                _ = try readState(child, parent: number)
            case (_, "datamodel"):
                try readDatamodel(child)
            case (_, "invoke"):
                throw unsupported(child, "<invoke> starts another session; this loader runs one document alone")
            case (.final, "donedata"):
                throw unsupported(child, "<donedata> gives done events data, which the integer datamodel cannot carry")
            default:
                throw misplaced(child, in: element)
            }
        }
        if states[number].isCompound == false && sawInitial {
            throw malformed(element, "\"\(id.shown)\" names an initial state but has no states inside it")
        }
        return number
    }

    private mutating func readHistory(_ element: ParsedElement, _ number: Int) throws(SCXMLError) -> Int {
        guard let parent = states[number].parent, states[parent].kind == .state || states[parent].kind == .parallel else {
            throw malformed(element, "a <history> belongs inside a <state> or a <parallel>")
        }
        let children = try elements(of: element)
        guard children.count == 1, let transition = children.first, transition.name == "transition" else {
            throw malformed(element, "a <history> holds exactly one <transition>, its default")
        }
        try checkAttributes(transition, allowed: ["target"])
        guard let target = transition.attribute("target") else {
            throw malformed(transition, "a history's default <transition> names its target")
        }
        pendingTargets.append((number, -1, ids(target), transition.line, transition.name))
        states[number].initialContent = try ExecutableContentReader(file: file).ops(transition)
        return number
    }

    private mutating func readInitial(_ element: ParsedElement, of state: Int) throws(SCXMLError) {
        try checkAttributes(element, allowed: [])
        let children = try elements(of: element)
        guard children.count == 1, let transition = children.first, transition.name == "transition" else {
            throw malformed(element, "an <initial> holds exactly one <transition>")
        }
        try checkAttributes(transition, allowed: ["target"])
        guard let target = transition.attribute("target") else {
            throw malformed(transition, "an <initial>'s <transition> names its target")
        }
        pendingTargets.append((state, -1, ids(target), transition.line, transition.name))
        states[state].initialContent = try ExecutableContentReader(file: file).ops(transition)
    }

    private mutating func readTransition(_ element: ParsedElement, of state: Int) throws(SCXMLError) {
        try checkAttributes(element, allowed: ["event", "cond", "target", "type"])
        let events = element.attribute("event").map(EventDescriptor.list) ?? []
        if element.attribute("event") != nil && events.isEmpty {
            throw malformed(element, "event=\"\" names no event; leave event= out for an eventless transition")
        }
        let isInternal: Bool
        switch element.attribute("type") ?? "external" {
        case "external": isInternal = false
        case "internal": isInternal = true
        case let other: throw malformed(element, "type=\"\(other.shown)\" is neither \"internal\" nor \"external\"")
        }
        let targetIDs = element.attribute("target").map(ids) ?? []
        if element.attribute("target") != nil && targetIDs.isEmpty {
            throw malformed(element, "target=\"\" names no state; leave target= out for a targetless transition")
        }
        let transition = DocumentTransition(
            events: events, cond: element.attribute("cond"), targets: [], isInternal: isInternal,
            content: try ExecutableContentReader(file: file).ops(element), line: element.line)
        states[state].transitions.append(transition)
        if !targetIDs.isEmpty {
            pendingTargets.append((state, states[state].transitions.count - 1, targetIDs, element.line, element.name))
        }
    }

    private mutating func readDatamodel(_ element: ParsedElement) throws(SCXMLError) {
        try checkAttributes(element, allowed: [])
        for child in try elements(of: element) {
            guard child.name == "data" else { throw misplaced(child, in: element) }
            try checkAttributes(child, allowed: ["id", "expr", "src"])
            if child.attribute("src") != nil {
                throw unsupported(child, "src= loads data from elsewhere; give the value with expr=")
            }
            guard let id = child.attribute("id") else { throw malformed(child, "a <data> has an id") }
            if let inner = child.elements.first {
                throw unsupported(inner, "a <data> with elements inside needs an XML datamodel")
            }
            let text = String(child.text.trimmingWhitespace)
            if child.attribute("expr") != nil && !text.isEmpty {
                throw malformed(child, "a <data> has expr= or content, not both")
            }
            if !dataIDs.insert(id).inserted {
                throw malformed(child, "the data \"\(id.shown)\" is declared twice")
            }
            data.append(DataDeclaration(id: id, expr: child.attribute("expr") ?? (text.isEmpty ? nil : text), line: child.line))
        }
    }

    // MARK: Helpers

    private func ids(_ attribute: String) -> [String] {
        attribute.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init)
    }

    /// The states `ids` name. Several must be able to be active together, each in another
    /// region of a parallel state: checked here once for the transition, where the runtime,
    /// which checks it too, would check each row the transition becomes and report each pair.
    private func resolve(_ ids: [String], line: Int, element: String) throws(SCXMLError) -> [Int] {
        if ids.count > SCXMLLimits.maximumTargets {
            throw SCXMLError.overLimit(
                file: file, line: line, element: element, limit: "maximumTargets", bound: SCXMLLimits.maximumTargets,
                what: "too many states are named together", fix: "name one state in each region of a parallel state")
        }
        var result: [Int] = []
        for id in ids {
            guard let state = stateNumbers[id] else {
                throw SCXMLError.malformed(file: file, line: line, element: element, reason: "no state has the id \"\(id.shown)\"")
            }
            result.append(state)
        }
        for (position, first) in result.enumerated() {
            for second in result[(position + 1)...] {
                if let why = whyNotTogether(first, second) {
                    throw SCXMLError.malformed(
                        file: file, line: line, element: element,
                        reason: "\"\(states[first].id.shown)\" and \"\(states[second].id.shown)\" cannot be active together (\(why)); "
                            + "name one state in each region of a parallel state")
                }
            }
        }
        return result
    }

    /// Why two states named together cannot both be active, nil when they can: each in
    /// another region of a parallel state, neither inside the other, neither a history.
    private func whyNotTogether(_ first: Int, _ second: Int) -> String? {
        if first == second { return "it is named twice" }
        if states[first].isHistory || states[second].isHistory { return "a history is named alone" }
        if isInside(first, second) || isInside(second, first) { return "one is inside the other" }
        var around = states[first].parent
        while let walker = around, !isInside(second, walker) { around = states[walker].parent }
        guard let common = around, states[common].kind == .parallel else {
            return "they are in the same region, not in two regions of a parallel state"
        }
        return nil
    }

    private func isInside(_ state: Int, _ ancestor: Int) -> Bool {
        var walker: Int? = state
        while let current = walker {
            if current == ancestor { return true }
            walker = states[current].parent
        }
        return false
    }

    /// The child elements; refuses elements of another namespace, and text (white space is
    /// passed over).
    private func elements(of element: ParsedElement) throws(SCXMLError) -> [ParsedElement] {
        try ExecutableContentReader(file: file).refuseText(in: element)
        let children = element.elements
        if let foreign = children.first(where: { $0.namespace != TestLanguage.scxmlNamespace }) {
            throw unsupported(foreign, "an element outside the SCXML namespace (\(foreign.namespace?.shown ?? "no namespace")) is not read")
        }
        return children
    }

    func checkAttributes(_ element: ParsedElement, allowed: Set<String>) throws(SCXMLError) {
        try ExecutableContentReader(file: file).checkAttributes(element, allowed: allowed)
    }

    private func misplaced(_ child: ParsedElement, in parent: ParsedElement) -> SCXMLError {
        let known: Set<String> = [
            "state", "parallel", "final", "history", "initial", "transition", "onentry", "onexit", "datamodel", "data",
            "raise", "send", "cancel", "assign", "if", "elseif", "else", "log", "script", "foreach", "invoke",
            "finalize", "donedata", "content", "param",
        ]
        if known.contains(child.name) {
            return .malformed(file: file, line: child.line, element: child.name, reason: "a <\(child.name.shown)> cannot be inside a <\(parent.name.shown)>")
        }
        return .unsupported(file: file, line: child.line, element: child.name, reason: "<\(child.name.shown)> is not an SCXML element this loader knows")
    }

    private func malformed(_ element: ParsedElement, _ reason: String) -> SCXMLError {
        .malformed(file: file, line: element.line, element: element.name, reason: reason)
    }

    private func unsupported(_ element: ParsedElement, _ reason: String) -> SCXMLError {
        .unsupported(file: file, line: element.line, element: element.name, reason: reason)
    }
}
