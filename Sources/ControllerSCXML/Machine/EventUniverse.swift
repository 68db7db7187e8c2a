/// Every event a document can see, known at load time: the names its `<raise>` and `<send>`
/// give, `done.state.ID` of every state that can complete, and `error.execution` (which a
/// failing expression raises). A transition's descriptors are matched against these once, and
/// each becomes one row per event it matches.
enum EventUniverse {
    static let executionError = "error.execution"

    static func names(of document: SCXMLDocument) -> [String] {
        var names: [String] = []
        func add(_ name: String) { if !names.contains(name) { names.append(name) } }
        func collect(_ ops: [ExecutableOp]) {
            for op in ops {
                switch op {
                case .raise(let event, _): add(event)
                case .send(let send): add(send.event)
                case .branches(let branches): for branch in branches { collect(branch.content) }
                case .cancel, .assign, .log: break
                }
            }
        }
        for state in document.states {
            collect(state.onEntry)
            collect(state.onExit)
            collect(state.initialContent)
            for transition in state.transitions { collect(transition.content) }
        }
        for (number, _) in document.states.enumerated() where completes(number, in: document) {
            add(doneEvent(of: number, in: document))
        }
        add(executionError)
        return names
    }

    static func doneEvent(of state: Int, in document: SCXMLDocument) -> String { "done.state.\(document.states[state].id)" }

    /// Whether `state` can send its done event: a compound state with a final state directly
    /// inside, a parallel state whose every region can complete.
    static func completes(_ state: Int, in document: SCXMLDocument) -> Bool {
        let node = document.states[state]
        switch node.kind {
        case .state:
            return node.children.contains { document.states[$0].kind == .final }
        case .parallel:
            let regions = node.children.filter { !document.states[$0].isHistory }
            return !regions.isEmpty && regions.allSatisfy { document.states[$0].kind == .state && completes($0, in: document) }
        case .final, .history:
            return false
        }
    }
}
