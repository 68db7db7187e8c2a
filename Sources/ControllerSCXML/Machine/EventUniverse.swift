/// Every event a document can see, known at load time: the names its `<raise>` and `<send>`
/// give, the external events a run was given (`scxml-run --events`), `done.state.ID` of every
/// state that can complete, and `error.execution` (which a failing expression raises). A transition's descriptors are matched against these once
/// (`EventIndex`), and each becomes one row per event it matches.
enum EventUniverse {
    static let executionError = "error.execution"
    /// What a `<send>` to a target no session answers raises.
    static let communicationError = "error.communication"

    /// The names in the order first met; more than `SCXMLLimits.maximumEvents` is refused at
    /// the element that names one more (`error.execution`, always there, has its place kept).
    static func names(of document: SCXMLDocument, external: [String] = []) throws(SCXMLError) -> [String] {
        var names: [String] = []
        var known: Set<String> = []
        func add(_ name: String, line: Int, element: String) throws(SCXMLError) {
            guard known.insert(name).inserted else { return }
            let kept = known.contains(executionError) ? 0 : 1
            if names.count + kept >= SCXMLLimits.maximumEvents {
                throw .overLimit(
                    file: document.file, line: line, element: element, limit: "maximumEvents", bound: SCXMLLimits.maximumEvents,
                    what: "the document has too many events (the names <raise> and <send> give, done.state.ID and error.execution)",
                    fix: "split it into smaller documents")
            }
            names.append(name)
        }
        func collect(_ ops: [ExecutableOp]) throws(SCXMLError) {
            for op in ops {
                switch op {
                case .raise(let event, let line): try add(event, line: line, element: "raise")
                case .send(let send):
                    switch send.target {
                    case .invalid: break
                    case .unreachable: try add(communicationError, line: send.line, element: "send")
                    case .session, .internal: try add(send.event, line: send.line, element: "send")
                    }
                case .branches(let branches): for branch in branches { try collect(branch.content) }
                case .cancel, .assign, .log: break
                }
            }
        }
        for state in document.states {
            for block in state.onEntry + state.onExit { try collect(block) }
            try collect(state.initialContent)
            for transition in state.transitions { try collect(transition.content) }
        }
        for name in external { try add(name, line: document.line, element: "scxml") }
        for (number, state) in document.states.enumerated() where completes(number, in: document) {
            try add(doneEvent(of: number, in: document), line: state.line, element: state.kind == .parallel ? "parallel" : "state")
        }
        try add(executionError, line: document.line, element: "scxml")
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
