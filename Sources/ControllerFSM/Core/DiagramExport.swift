/// The table as a diagram: Graphviz DOT and Mermaid `stateDiagram-v2`. Guards are shown in
/// brackets; internal transitions are drawn as dashed self-loops (DOT) or marked "(internal)".
/// A nested machine draws each superstate around the states inside it (a DOT cluster, a Mermaid
/// composite state) with its initial state, and a history as `H` (`H*` when deep); a parallel
/// state is a dashed cluster (DOT) or a composite state with `--` between its regions
/// (Mermaid). A row to several states draws an arrow to each.
extension TransitionTable {
    /// Graphviz DOT; render with `dot -Tsvg`.
    public func dot(name: String = "machine") -> String {
        if isNested { return nestedDot(name: name) }
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
        if isNested { return nestedMermaid() }
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

    // MARK: nested machines

    /// The states directly inside `superstate` (nil: the top), in declaration order.
    private func children(of superstate: State?) -> [State] {
        State.allCases.filter { parent(of: $0) == superstate }
    }

    private func nestedDot(name: String) -> String {
        var text = "digraph \(quoted(name)) {\n"
        text += "    rankdir=LR;\n"
        text += "    compound=true;\n"
        text += "    node [shape=box, style=rounded];\n"
        text += "    __initial [shape=point, label=\"\"];\n"
        text += "    __initial -> \(dotNode(initial))\(dotHead(initial, tail: nil));\n"
        func declare(_ superstate: State?, indent: String) {
            for state in children(of: superstate) {
                if isSuperstate(state) {
                    text += "\(indent)subgraph \(quoted("cluster_" + state.name)) {\n"
                    text += "\(indent)    label=\(quoted(state.name));\n"
                    text += "\(indent)    style=\(isParallelState(state) ? "\"rounded,dashed\"" : "rounded");\n"
                    text += "\(indent)    \(quoted("__initial_" + state.name)) [shape=point, label=\"\"];\n"
                    declare(state, indent: indent + "    ")
                    for initialState in initialInfo where initialState.superstate == state {
                        let label = initialState.guardLabel.map { " [label=\(quoted("[\($0)]"))]" } ?? ""
                        for target in initialState.targets {
                            text += "\(indent)    \(quoted("__initial_" + state.name)) -> \(dotNode(target))\(label.isEmpty ? "" : label)\(dotHead(target, tail: nil));\n"
                        }
                    }
                    text += "\(indent)}\n"
                } else if isHistory(state) {
                    let history = historyInfo.first { $0.state == state }!
                    text += "\(indent)\(quoted(state.name)) [shape=circle, label=\(quoted(history.isDeep ? "H*" : "H"))];\n"
                    for target in history.defaultTargets {
                        text += "\(indent)\(quoted(state.name)) -> \(dotNode(target)) [style=dotted\(dotAttributes(target, tail: nil))];\n"
                    }
                } else {
                    text += "\(indent)\(quoted(state.name));\n"
                }
            }
        }
        declare(nil, indent: "    ")
        for row in rowInfo {
            for target in row.targets.isEmpty ? [row.from] : row.targets {
                var attributes = "label=\(quoted(label(of: row)))"
                if row.target == nil { attributes += ", style=dashed" }
                attributes += dotAttributes(target, tail: row.from)
                text += "    \(dotNode(row.from)) -> \(dotNode(target)) [\(attributes)];\n"
            }
        }
        text += "}\n"
        return text
    }

    /// A superstate is drawn as a cluster; an edge to or from it ends at its initial point,
    /// clipped at the cluster's border.
    private func dotNode(_ state: State) -> String {
        quoted(isSuperstate(state) ? "__initial_" + state.name : state.name)
    }

    private func dotAttributes(_ head: State, tail: State?) -> String {
        var attributes = ""
        if isSuperstate(head) { attributes += ", lhead=\(quoted("cluster_" + head.name))" }
        if let tail, isSuperstate(tail) { attributes += ", ltail=\(quoted("cluster_" + tail.name))" }
        return attributes
    }

    private func dotHead(_ head: State, tail: State?) -> String {
        let attributes = dotAttributes(head, tail: tail)
        return attributes.isEmpty ? "" : " [" + attributes.dropFirst(2) + "]"
    }

    private func nestedMermaid() -> String {
        var text = "stateDiagram-v2\n"
        text += "    [*] --> \(initial.name)\n"
        // Each row goes into the innermost superstate holding both its ends, so Mermaid keeps
        // every state where it is declared.
        func innermostCommon(_ a: State, _ b: State) -> State? {
            let around = configuration(of: a).dropFirst()
            return around.first { configuration(of: b).contains($0) }
        }
        func body(_ superstate: State?, indent: String) {
            for (position, state) in children(of: superstate).enumerated() {
                // Mermaid's concurrency separator between the regions of a parallel state.
                if let superstate, isParallelState(superstate), position > 0, !isHistory(state) { text += "\(indent)--\n" }
                if isSuperstate(state) {
                    text += "\(indent)state \(state.name) {\n"
                    for initialState in initialInfo where initialState.superstate == state {
                        let label = initialState.guardLabel.map { " : [\(replacing(":", with: "#58;", in: $0))]" } ?? ""
                        for target in initialState.targets { text += "\(indent)    [*] --> \(target.name)\(label)\n" }
                    }
                    body(state, indent: indent + "    ")
                    text += "\(indent)}\n"
                } else if isHistory(state) {
                    let history = historyInfo.first { $0.state == state }!
                    text += "\(indent)state \"\(history.isDeep ? "H*" : "H")\" as \(state.name)\n"
                    for target in history.defaultTargets { text += "\(indent)\(state.name) --> \(target.name) : default\n" }
                }
            }
            for row in rowInfo {
                for target in row.targets.isEmpty ? [row.from] : row.targets {
                    guard innermostCommon(row.from, target) == superstate else { continue }
                    var label = label(of: row)
                    if row.target == nil { label += " (internal)" }
                    text += "\(indent)\(row.from.name) --> \(target.name) : \(replacing(":", with: "#58;", in: label))\n"
                }
            }
        }
        body(nil, indent: "    ")
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
