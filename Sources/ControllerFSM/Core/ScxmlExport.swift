/// The table's structure as an SCXML document, which SCXML editors open and the SCXML loader
/// reads back: every state with its nesting (`<state>`, `<parallel>`, `<final>`, `<history>`),
/// each superstate's initial state, and every row as a `<transition>` with its event, its
/// targets and `type="internal"` where it stays in its state. A guard is Swift, which a chart
/// cannot evaluate: it becomes a `<data>` flag named for its label (``scxmlGuardFlags``), 0
/// until something sets it, and the row's `cond` tests it (`inShut == 1`), so the document runs
/// as written with every guarded row waiting for its flag. The work (entry, exit, actions) is
/// Swift and is not written; an initial state chosen by a guard, which SCXML cannot say, is
/// written as a comment before the unguarded default, and so is a superstate's done event.
extension TransitionTable {
    public func scxml(name: String = "machine") -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<scxml xmlns=\"http://www.w3.org/2005/07/scxml\" version=\"1.0\" name=\"\(xmlEscaped(name))\" initial=\"\(xmlEscaped(initial.name))\">\n"
        let flags = scxmlGuardFlags
        if !flags.isEmpty {
            text += "    <datamodel>\n"
            for flag in flags {
                text += "        <!-- the guard [\(xmlCommentSafe(flag.label))] -->\n"
                text += "        <data id=\"\(xmlEscaped(flag.flag))\" expr=\"0\"/>\n"
            }
            text += "    </datamodel>\n"
        }
        for state in State.allCases where parent(of: state) == nil { scxmlElement(state, indent: "    ", flags: flags, into: &text) }
        text += "</scxml>\n"
        return text
    }

    /// Each guard label of the rows, in the order first met, with the `<data>` flag that stands
    /// for it in ``scxml(name:)``: the label itself when it is a plain name (`flashed`), else a
    /// name made of its letters and digits (`credit > 0`: `credit_0`), made unique.
    public var scxmlGuardFlags: [(label: String, flag: String)] {
        var flags: [(label: String, flag: String)] = []
        for row in rowInfo {
            guard let label = row.guardLabel, !flags.contains(where: { $0.label == label }) else { continue }
            let base = Self.flagName(label)
            var flag = base
            var suffix = 2
            while flags.contains(where: { $0.flag == flag }) {
                flag = base + "_" + String(suffix)
                suffix += 1
            }
            flags.append((label, flag))
        }
        return flags
    }

    /// A name the integer datamodel reads, from `label`: ASCII letters and digits kept, any
    /// run of other characters one `_`, never starting with a digit or `_`, never a word of
    /// the datamodel's own.
    static func flagName(_ label: String) -> String {
        var name = ""
        var pendingSeparator = false
        for character in label.unicodeScalars {
            let isLetter = (character >= "a" && character <= "z") || (character >= "A" && character <= "Z")
            let isDigit = character >= "0" && character <= "9"
            if isLetter || isDigit {
                if pendingSeparator && !name.isEmpty { name += "_" }
                pendingSeparator = false
                name.unicodeScalars.append(character)
            } else {
                pendingSeparator = true
            }
        }
        let first = name.unicodeScalars.first
        if name.isEmpty || (first.map { $0 >= "0" && $0 <= "9" } ?? true) || name == "true" || name == "false" || name == "In" {
            name = "guard_" + name
        }
        return name
    }

    private func scxmlElement(_ state: State, indent: String, flags: [(label: String, flag: String)], into text: inout String) {
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
            if let label = row.guardLabel, let flag = flags.first(where: { $0.label == label })?.flag {
                transition += " cond=\"\(xmlEscaped(flag)) == 1\""
            }
            if !row.targets.isEmpty { transition += " target=\"\(targetList(row.targets))\"" }
            let staysInside = row.kind == .local && isSuperstate(state) && !isParallelState(state)
                && row.targets.allSatisfy { $0 != state && configuration(of: $0).contains(state) }
            if staysInside && !row.targets.isEmpty { transition += " type=\"internal\"" }
            text += "\(indent)    \(transition)/>\n"
        }
        for child in children { scxmlElement(child, indent: indent + "    ", flags: flags, into: &text) }
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
