/// The table's structure as an SCXML document, which SCXML editors open: every state with its
/// nesting (`<state>`, `<parallel>`, `<final>`, `<history>`), each superstate's initial state,
/// and every row as a `<transition>` with its event, its guard's label as `cond`, its targets and
/// `type="internal"` where it stays in its state. The work (entry, exit, actions) is Swift and
/// is not written; an initial state chosen by a guard, which SCXML cannot say, is written as a
/// comment before the unguarded default, and so is a superstate's done event.
extension TransitionTable {
    public func scxml(name: String = "machine") -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<scxml xmlns=\"http://www.w3.org/2005/07/scxml\" version=\"1.0\" name=\"\(xmlEscaped(name))\" initial=\"\(xmlEscaped(initial.name))\">\n"
        for state in State.allCases where parent(of: state) == nil { scxmlElement(state, indent: "    ", into: &text) }
        text += "</scxml>\n"
        return text
    }

    private func scxmlElement(_ state: State, indent: String, into text: inout String) {
        let id = xmlEscaped(state.name)
        if isHistory(state) {
            let history = historyInfo.first { $0.state == state }!
            text += "\(indent)<history id=\"\(id)\" type=\"\(history.isDeep ? "deep" : "shallow")\">\n"
            text += "\(indent)    <transition target=\"\(targetList(history.defaultTargets))\"/>\n"
            text += "\(indent)</history>\n"
            return
        }
        if isFinal(state) {
            text += "\(indent)<final id=\"\(id)\"/>\n"
            return
        }
        let element = isParallelState(state) ? "parallel" : "state"
        var attributes = ""
        var comments: [String] = []
        let initials = initialInfo.filter { $0.superstate == state }
        if let defaultInitial = initials.last {
            attributes = " initial=\"\(targetList(defaultInitial.targets))\""
            for guarded in initials.dropLast() {
                comments.append("initial when [\(guarded.guardLabel ?? "")]: \(guarded.targets.map { $0.name }.joined(separator: " "))")
            }
        }
        let done = doneEvent[state.index]
        if done >= 0 { comments.append("when done sends \(Event(rawValue: Int(done))!.name)") }
        let rows = rowInfo.filter { $0.from == state }
        let children = State.allCases.filter { parent(of: $0) == state }
        if rows.isEmpty && children.isEmpty && comments.isEmpty {
            text += "\(indent)<\(element) id=\"\(id)\"\(attributes)/>\n"
            return
        }
        text += "\(indent)<\(element) id=\"\(id)\"\(attributes)>\n"
        for comment in comments { text += "\(indent)    <!-- \(xmlCommentSafe(comment)) -->\n" }
        for row in rows {
            var transition = "<transition"
            if let event = row.event { transition += " event=\"\(xmlEscaped(event.name))\"" }
            if let label = row.guardLabel { transition += " cond=\"\(xmlEscaped(label))\"" }
            if !row.targets.isEmpty { transition += " target=\"\(targetList(row.targets))\"" }
            let staysInside = row.kind == .local && isSuperstate(state) && !isParallelState(state)
                && row.targets.allSatisfy { $0 != state && configuration(of: $0).contains(state) }
            if staysInside && !row.targets.isEmpty { transition += " type=\"internal\"" }
            text += "\(indent)    \(transition)/>\n"
        }
        for child in children { scxmlElement(child, indent: indent + "    ", into: &text) }
        text += "\(indent)</\(element)>\n"
    }

    private func targetList(_ states: [State]) -> String {
        xmlEscaped(states.map { $0.name }.joined(separator: " "))
    }

    // Written out because Embedded Swift's String lacks Foundation's replacingOccurrences.
    private func xmlEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A comment may not hold `--`.
    private func xmlCommentSafe(_ text: String) -> String {
        var result = ""
        var previous: Character = " "
        for character in text {
            if character == "-" && previous == "-" { result += " " }
            result.append(character)
            previous = character
        }
        return result
    }
}
