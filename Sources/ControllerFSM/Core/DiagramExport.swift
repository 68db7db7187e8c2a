/// The table as a diagram: Graphviz DOT and Mermaid `stateDiagram-v2`. Guards are shown in
/// brackets; internal transitions are drawn as dashed self-loops (DOT) or marked "(internal)".
extension TransitionTable {
    /// Graphviz DOT; render with `dot -Tsvg`.
    public func dot(name: String = "machine") -> String {
        var text = "digraph \(quoted(name)) {\n"
        text += "    rankdir=LR;\n"
        text += "    node [shape=box, style=rounded];\n"
        text += "    __initial [shape=point, label=\"\"];\n"
        text += "    __initial -> \(quoted(initial.name));\n"
        for state in State.allCases {
            text += "    \(quoted(state.name));\n"
        }
        for row in rowInfo {
            let target = row.target ?? row.from
            var attributes = "label=\(quoted(label(of: row)))"
            if row.target == nil { attributes += ", style=dashed" }
            text += "    \(quoted(row.from.name)) -> \(quoted(target.name)) [\(attributes)];\n"
        }
        text += "}\n"
        return text
    }

    /// Mermaid `stateDiagram-v2`, which GitHub renders in Markdown.
    public func mermaid() -> String {
        var text = "stateDiagram-v2\n"
        text += "    [*] --> \(initial.name)\n"
        for row in rowInfo {
            let target = row.target ?? row.from
            var label = label(of: row)
            if row.target == nil { label += " (internal)" }
            // A colon would end the label early in Mermaid.
            text += "    \(row.from.name) --> \(target.name) : \(replacing(":", with: "#58;", in: label))\n"
        }
        return text
    }

    private func label(of row: RowInfo) -> String {
        let trigger = row.event?.name ?? "always"
        guard let guardLabel = row.guardLabel else { return trigger }
        return "\(trigger) [\(guardLabel)]"
    }

    private func quoted(_ text: String) -> String {
        "\"" + replacing("\"", with: "\\\"", in: text) + "\""
    }

    // Written out because Embedded Swift's String lacks Foundation's replacingOccurrences.
    private func replacing(_ target: Character, with replacement: String, in text: String) -> String {
        var result = ""
        for character in text {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
