import ControllerFSM

/// Whether a machine written as SCXML (`graph --format scxml`, `table.scxml()`) comes back as
/// itself: the document read by the loader and built into a machine, then compared with the
/// table it was written from.
///
/// ```swift
/// let differences = try SCXMLExportCheck.differences(TurnstileApplication.table, name: "turnstile")
/// ```
public enum SCXMLExportCheck {
    /// Where the written and read machines differ, one line each; empty when they have the same
    /// states (ids, nesting, kinds), the same initial states and the same rows — source, event,
    /// targets, and the guard as the flag that stands for its label (`scxmlGuardFlags`) — in the
    /// same order, state by state.
    ///
    /// - Throws: the loader's refusal, when the document does not read or build.
    public static func differences<State, Event, Context>(
        _ table: TransitionTable<State, Event, Context>, name: String
    ) throws(SCXMLError) -> [String] {
        let document = try SCXMLRunner.document(text: table.scxml(name: name), file: "\(name).scxml")
        // Building it proves every cond reads and every target resolves, as a run would need.
        let model = try SCXMLRunner.datamodel(of: document)
        try build(document, model: model)
        var differences: [String] = []
        func differ(_ what: String, _ written: some Equatable & CustomStringConvertible, _ read: some Equatable & CustomStringConvertible) {
            if "\(written)" != "\(read)" { differences.append("\(what): written \(written), read \(read)") }
        }
        let id = { (number: Int) in document.states[number].id }
        differ("states", State.allCases.map(\.name).sorted(), document.states.map(\.id).sorted())
        differ("initial state", [table.initial.name], document.initial.map(id))
        let flags = table.scxmlGuardFlags
        for state in State.allCases {
            guard let node = document.states.first(where: { $0.id == state.name }) else { continue }
            differ("\(state.name)'s superstate", table.parent(of: state)?.name ?? "none", node.parent.map(id) ?? "none")
            differ("\(state.name) is parallel", table.isParallelState(state), node.kind == .parallel)
            differ("\(state.name) is final", table.isFinal(state), node.kind == .final)
            differ("\(state.name) is a history", table.isHistory(state), node.isHistory)
            if let initial = table.initialInfo.last(where: { $0.superstate == state }) {
                differ("\(state.name)'s initial state", initial.targets.map(\.name), node.initial.map(id))
            }
            let written = table.rowInfo.filter { $0.from == state }.map { row in
                let flag = row.guardLabel.flatMap { label in flags.first { $0.label == label }?.flag }
                return "\(row.event?.name ?? "-") [\(flag.map { "\($0) == 1" } ?? "")] -> \(row.targets.map(\.name))"
            }
            let read = node.transitions.map { transition in
                "\(transition.events.first?.description ?? "-") [\(transition.cond ?? "")] -> \(transition.targets.map(id))"
            }
            differ("\(state.name)'s rows", written, read)
        }
        return differences
    }

    private static func build<Model: SCXMLDatamodel>(_ document: SCXMLDocument, model _: Model.Type) throws(SCXMLError) {
        _ = try MachineBuilder<Model>.build(document)
    }
}
