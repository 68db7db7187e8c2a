import ControllerFSM
import ControllerHost

/// Makes a machine on the runtime of an `SCXMLDocument` and a datamodel:
/// - a state per `<state>`, `<parallel>`, `<final>` and `<history>`, numbered in document
///   order (with one more, `(scxml)`, around them all when `<scxml initial=…>` names several
///   states: the runtime's machine starts in one state);
/// - an event per name the document can raise or send, `done.state.ID` of every state that can
///   complete, and `error.execution`; a transition's descriptors become one row for each event
///   they match, so the rows of one state and event keep document order, SCXML's order of
///   selection;
/// - every state's entry marks it active before its `<onentry>` runs, its exit clears the mark
///   after its `<onexit>` (what `In(id)` reads);
/// - `type="internal"` is a local row, the default an external one; a targetless transition an
///   internal row; `cond` a guard labelled with its text.
public enum MachineBuilder<Model: SCXMLDatamodel> {
    public typealias Context = SCXMLContext<Model>

    /// The name of the state around everything, when one is needed.
    public static var rootName: String { "(scxml)" }
    /// What the runtime's messages give as the file of a row or a state: replaced by the
    /// document's path in what the loader reports (the line is the document's).
    static var sourceMarker: StaticString { "<scxml-document>" }

    /// The states and events of `document`, with `externalEvents` (what a run will send it from
    /// outside); more events than `SCXMLLimits.maximumEvents` are refused.
    public static func symbols(for document: SCXMLDocument, externalEvents: [String] = []) throws(SCXMLError) -> DocumentSymbolTable {
        let states = document.states.map(\.id) + (needsRoot(document) ? [rootName] : [])
        return DocumentSymbolTable(states: states, events: try EventUniverse.names(of: document, external: externalEvents))
    }

    static func needsRoot(_ document: SCXMLDocument) -> Bool { document.initial.count > 1 }

    /// Builds and compiles the machine, inside a scope of the document's own symbols (the
    /// runtime reads a document's states through `DocumentSymbols.$table`): callable anywhere,
    /// with no scope of the caller's.
    /// - Parameters:
    ///   - document: the chart.
    ///   - externalEvents: the names of events a run will send it from outside, which its
    ///     transitions may take though nothing in it raises or sends them.
    public static func build(_ document: SCXMLDocument, externalEvents: [String] = []) throws(SCXMLError) -> SCXMLMachine<Model> {
        let symbols = try symbols(for: document, externalEvents: externalEvents)
        let built: Result<SCXMLMachine<Model>, SCXMLError> = DocumentSymbols.$table.withValue(symbols) {
            do throws(SCXMLError) {
                var builder = try Builder<TaskBoundSymbols>(document: document, symbols: symbols, options: ChartBuildOptions())
                return .success(try builder.build())
            } catch {
                return .failure(error)
            }
        }
        return try built.get()
    }

    /// Builds and compiles the machine in a space of the caller's, whose table must already be
    /// `symbols` (made by ``symbols(for:externalEvents:)`` and set in the space first: the
    /// runtime reads the states' cases as it compiles).
    public static func build<Space: DocumentSymbolSpace>(
        _ document: SCXMLDocument, symbols: DocumentSymbolTable, options: ChartBuildOptions, in _: Space.Type
    ) throws(SCXMLError) -> ChartMachine<Model, Space> {
        precondition(Space.symbols.states == symbols.states && Space.symbols.events == symbols.events,
                     "build(_:symbols:options:in:): the space must hold the document's symbols before the machine is built")
        var builder = try Builder<Space>(document: document, symbols: symbols, options: options)
        return try builder.build()
    }

    private struct Builder<Space: DocumentSymbolSpace> {
        typealias State = ChartState<Space>
        typealias Event = ChartEvent<Space>
        typealias Definition = MachineDefinition<State, Event, Context>

        let document: SCXMLDocument
        let symbols: DocumentSymbolTable
        let options: ChartBuildOptions
        var model: Model
        let errorEvent: Int
        /// Timer slots by send id, in document order (`options.delayedSendsAsTimers`).
        let timerSlots: [String: Int]
        let root: State?
        /// By state, by transition: the events (numbers) its descriptors match.
        let expansion: [[[Int]]]

        init(document: SCXMLDocument, symbols: DocumentSymbolTable, options: ChartBuildOptions) throws(SCXMLError) {
            self.document = document
            self.symbols = symbols
            self.options = options
            model = Model(scope: SCXMLScope(stateIDs: symbols.states, name: document.name, sessionID: "\(document.file)#1"))
            errorEvent = symbols.eventNumber(named: EventUniverse.executionError)!
            timerSlots = options.delayedSendsAsTimers ? try ChartTimers.slots(of: document) : [:]
            root = needsRoot(document) ? State(number: document.states.count) : nil
            expansion = try Self.expand(document, symbols: symbols)
        }

        /// Each transition's events, checking the table the runtime will lay out against
        /// `SCXMLLimits.maximumRows` and `maximumTableCells` as it goes, so that a document
        /// past them costs no more than the bound before it is refused.
        ///
        /// The runtime's table has a column for each event and one for eventless rows in every
        /// state; a state's column holds its own rows for that event and those of every state
        /// around it, and is laid out by looking through each of those states' rows. A state's
        /// rows are so counted once for each state inside it (itself included), and its cells
        /// are (events + 1) × (the states around it + their rows).
        private static func expand(_ document: SCXMLDocument, symbols: DocumentSymbolTable) throws(SCXMLError) -> [[[Int]]] {
            // The states with a block of their own (histories have none) inside each state,
            // itself included: children come after their parents in document order.
            var inside = document.states.map { $0.isHistory ? 0 : 1 }
            for number in document.states.indices.reversed() {
                if let parent = document.states[number].parent { inside[parent] += inside[number] }
            }
            let columns = symbols.events.count + 1
            // The state around them all holds no rows but is around every state.
            var cells = needsRoot(document) ? 1 + document.states.filter { !$0.isHistory }.count : 0
            var rows = 0
            func check(line: Int, element: String) throws(SCXMLError) {
                if rows > SCXMLLimits.maximumRows {
                    throw .overLimit(
                        file: document.file, line: line, element: element, limit: "maximumRows", bound: SCXMLLimits.maximumRows,
                        what: "the runtime's table would hold too many rows (a transition once for each event it matches, again in each state inside its own)",
                        fix: "name the events a transition answers rather than \"*\", or split the document")
                }
                if cells * columns > SCXMLLimits.maximumTableCells {
                    throw .overLimit(
                        file: document.file, line: line, element: element, limit: "maximumTableCells", bound: SCXMLLimits.maximumTableCells,
                        what: "the runtime's table would have too many cells, (events + 1) × (states and the states around them + rows)",
                        fix: "use fewer events, states or rows, or split the document")
                }
            }
            var index = EventIndex(events: symbols.events)
            var expansion: [[[Int]]] = []
            expansion.reserveCapacity(document.states.count)
            for node in document.states {
                let number = expansion.count
                cells += inside[number]
                try check(line: node.line, element: Self.elementName(node.kind))
                var events: [[Int]] = []
                for transition in node.transitions {
                    let matched = transition.events.isEmpty ? [] : index.events(matching: transition.events)
                    let made = transition.events.isEmpty ? 1 : matched.count
                    rows += made * inside[number]
                    cells += made * inside[number]
                    try check(line: transition.line, element: "transition")
                    events.append(matched)
                }
                expansion.append(events)
            }
            return expansion
        }

        private static func elementName(_ kind: DocumentStateNode.Kind) -> String {
            switch kind {
            case .state: "state"
            case .parallel: "parallel"
            case .final: "final"
            case .history: "history"
            }
        }

        mutating func build() throws(SCXMLError) -> ChartMachine<Model, Space> {
            // Every datum is declared before any expression is read: an expression may name a
            // datum declared further on (early binding).
            var bindings: [(Model.Location, Model.ValueExpression?)] = []
            for data in document.data {
                let location = try prepareChanging(data.line, "data") { (model: inout Model) throws(DatamodelRefusal) in try model.declare(data.id) }
                bindings.append((location, nil))
            }
            for (index, data) in document.data.enumerated() {
                if let expr = data.expr {
                    bindings[index].1 = try prepare(data.line, "data") { (model: inout Model) throws(DatamodelRefusal) in try model.value(expr) }
                }
            }
            var definition = Definition(initial: initialState())
            if let root {
                let targets = document.initial.map(State.init(number:))
                definition.state(root, file: MachineBuilder.sourceMarker, line: UInt(document.line)) { s in
                    s.initial(targets, file: MachineBuilder.sourceMarker, line: UInt(document.line))
                }
            }
            for number in document.states.indices {
                try addState(number, to: &definition)
            }
            let table: TransitionTable<State, Event, Context>
            do {
                table = try definition.compile(tolerating: [.unreachableState, .unreachableRow, .duplicateRow])
            } catch {
                throw SCXMLError.refusedByRuntime(file: document.file, problems: listed(error.problems.map { $0.message }))
            }
            var context = Context(model: model, stateCount: symbols.states.count)
            for (index, (location, expression)) in bindings.enumerated() {
                guard let expression else { continue }
                do throws(DatamodelExecutionError) {
                    let value = try context.model.evaluateValue(expression, in: context.configuration)
                    try context.model.assign(value, to: location)
                } catch {
                    throw SCXMLError.unsupported(
                        file: document.file, line: document.data[index].line, element: "data",
                        reason: "its value cannot be computed at the start (\(error.reason))")
                }
            }
            let finals = document.topLevel.filter { document.states[$0].kind == .final }.map(State.init(number:))
            if options.delayedSendsAsTimers {
                context.timerDelays = try ChartTimers.timers(of: document).map(\.delayNanoseconds)
            }
            return ChartMachine(
                document: document, symbols: symbols, table: table, context: context, finals: finals,
                warnings: table.warnings.map(shown))
        }

        /// Where the machine starts: `<scxml initial=…>`, else the first state in the document.
        func initialState() -> State {
            if let root { return root }
            if let only = document.initial.first { return State(number: only) }
            return State(number: document.topLevel[0])
        }

        /// A message of the runtime's with the document's path in place of the marker, escaped
        /// and bounded: it names states and events by their ids, which are document text.
        func shown(_ message: String) -> String {
            let marker = MachineBuilder.sourceMarker.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
            return ShownText.render(message.replacing(marker, with: document.file), limit: SCXMLLimits.maximumProblemCharacters, escaping: true)
        }

        /// The first `SCXMLLimits.maximumProblemsListed` of the runtime's problems, shown, and
        /// how many more there are.
        func listed(_ messages: [String]) -> [String] {
            let kept = messages.prefix(SCXMLLimits.maximumProblemsListed).map(shown)
            let more = messages.count - kept.count
            return more > 0 ? kept + ["and \(more) more"] : kept
        }

        private func parent(of number: Int) -> State? {
            document.states[number].parent.map(State.init(number:)) ?? root
        }

        private mutating func addState(_ number: Int, to definition: inout Definition) throws(SCXMLError) {
            let node = document.states[number]
            let state = State(number: number)
            let line = UInt(node.line)
            let marker = MachineBuilder.sourceMarker
            if case .history(let deep) = node.kind {
                let action = action(for: try compile(node.initialContent), event: nil)
                definition.history(
                    state, of: parent(of: number)!, deep: deep, default: node.initial.map(State.init(number:)),
                    file: marker, line: line, action)
                return
            }
            let entryBlocks = try node.onEntry.map { (block) throws(SCXMLError) in try compile(block) }
            let exitBlocks = try node.onExit.map { (block) throws(SCXMLError) in try compile(block) }
            let errorEvent = errorEvent
            var initialTargets: [State] = []
            var initialAction: MachineAction<State, Event, Context>?
            if node.isCompound {
                let first = node.children.first { !document.states[$0].isHistory }
                initialTargets = (node.initial.isEmpty ? first.map { [$0] } ?? [] : node.initial).map(State.init(number:))
                initialAction = action(for: try compile(node.initialContent), event: nil)
            }
            var rows: [(Event?, Guard<Context>?, [State], TransitionKind, MachineAction<State, Event, Context>?, UInt, [Event]?)] = []
            for (position, transition) in node.transitions.enumerated() {
                let condition = try transition.cond.map { (text) throws(SCXMLError) in try self.guardFor(text, line: transition.line) }
                let targets = transition.targets.map(State.init(number:))
                let kind: TransitionKind = transition.isInternal ? .local : .external
                // The content is compiled once; each event's row sets its own _event.
                let ops = try compile(transition.content)
                let sends = CompiledOp.certainRaises(ops)?.map(Event.init(number:))
                if transition.events.isEmpty {
                    rows.append((nil, condition, targets, kind, rowAction(ops, event: nil, line: transition.line), UInt(transition.line), sends))
                    continue
                }
                for event in expansion[number][position] {
                    let action = rowAction(ops, event: symbols.events[event], line: transition.line)
                    rows.append((Event(number: event), condition, targets, kind, action, UInt(transition.line), sends))
                }
            }
            // What the entry and exit raise for certain, declared so that compile() refuses a loop
            // of raised events it can be sure of (the run-time bound ends the others).
            let entrySends = CompiledOp.certainRaises(entryBlocks.flatMap { $0 })?.map(Event.init(number:))
            let exitSends = CompiledOp.certainRaises(exitBlocks.flatMap { $0 })?.map(Event.init(number:))
            let body: (inout StateBlock<State, Event, Context>) -> Void = { s in
                // In the configuration before its onentry runs, out of it after its onexit.
                s.onEntry(sends: entrySends, file: marker, line: line) { context, effects in
                    context.configuration.set(number, active: true)
                    context.journal?.append(.entered(number))
                    for block in entryBlocks { OpInterpreter<Model, Space>.run(block, errorEvent: errorEvent, &context, &effects) }
                }
                s.onExit(sends: exitSends, file: marker, line: line) { context, effects in
                    for block in exitBlocks { OpInterpreter<Model, Space>.run(block, errorEvent: errorEvent, &context, &effects) }
                    context.configuration.set(number, active: false)
                    context.journal?.append(.exited(number))
                }
                if !initialTargets.isEmpty { s.initial(initialTargets, file: marker, line: line, initialAction) }
                for (event, condition, targets, kind, action, rowLine, sends) in rows {
                    switch (event, targets.isEmpty) {
                    case (let event?, true): s.on(event, when: condition, kind: kind, sends: sends, file: marker, line: rowLine, action)
                    case (let event?, false): s.on(event, when: condition, to: targets, kind: kind, sends: sends, file: marker, line: rowLine, action)
                    case (nil, true): s.always(when: condition, kind: kind, file: marker, line: rowLine, action)
                    case (nil, false): s.always(when: condition, to: targets, kind: kind, file: marker, line: rowLine, action)
                    }
                }
            }
            let done = EventUniverse.completes(number, in: document)
                ? symbols.eventNumber(named: EventUniverse.doneEvent(of: number, in: document)).map(Event.init(number:)) : nil
            switch node.kind {
            case .final:
                definition.final(state, in: parent(of: number), file: marker, line: line, body)
            case .parallel:
                definition.parallel(state, in: parent(of: number), whenDone: done, file: marker, line: line, body)
            case .state:
                if let done {
                    definition.state(state, in: parent(of: number), whenDone: done, file: marker, line: line, body)
                } else {
                    definition.state(state, in: parent(of: number), file: marker, line: line, body)
                }
            case .history:
                break
            }
        }

        /// A transition's action: noted in a traced run's journal, then `_event` set and the
        /// content run.
        private func rowAction(_ ops: [CompiledOp<Model>], event: String?, line: Int) -> MachineAction<State, Event, Context> {
            let content = action(for: ops, event: event)
            return { context, effects in
                context.journal?.append(.transition(line: line, event: event))
                content?(&context, &effects)
            }
        }

        /// A row's (or an initial's, a history default's) action: `_event` set, then the content.
        private func action(for ops: [CompiledOp<Model>], event: String?) -> MachineAction<State, Event, Context>? {
            if ops.isEmpty && event == nil { return nil }
            let errorEvent = errorEvent
            return { context, effects in
                if let event { context.model.setEvent(name: event) }
                if !ops.isEmpty { OpInterpreter<Model, Space>.run(ops, errorEvent: errorEvent, &context, &effects) }
            }
        }

        private func guardFor(_ text: String, line: Int) throws(SCXMLError) -> Guard<Context> {
            let condition = try prepare(line, "transition") { (model: inout Model) throws(DatamodelRefusal) in try model.condition(text) }
            // A condition that fails to evaluate is false (SCXML 5.9.1); a guard cannot raise
            // error.execution, as it has no effects to send with.
            return Guard(text) { context in (try? context.model.evaluateCondition(condition, in: context.configuration)) ?? false }
        }

        private func compile(_ ops: [ExecutableOp]) throws(SCXMLError) -> [CompiledOp<Model>] {
            var result: [CompiledOp<Model>] = []
            for op in ops {
                switch op {
                case .raise(let event, _):
                    result.append(.raise(symbols.eventNumber(named: event)!))
                case .send(let send):
                    if case .invalid(let reason) = send.target {
                        result.append(.sendInvalid(reason: reason))
                        continue
                    }
                    if case .unreachable = send.target {
                        result.append(.sendUndeliverable(symbols.eventNumber(named: EventUniverse.communicationError)!))
                        continue
                    }
                    let event = symbols.eventNumber(named: send.event)!
                    if options.delayedSendsAsTimers, let id = send.id, let slot = timerSlots[id] {
                        // ChartTimers checked every send of the chart: delayed, with an id.
                        result.append(.startTimer(slot: slot, event: event))
                        continue
                    }
                    // A delayed send waits in the driver's list whatever its target: it falls
                    // due only when the external queue is empty (time moves then alone), so it
                    // is the next event dispatched, as it would be from the internal queue.
                    if send.target == .internal && send.delayNanoseconds == 0 {
                        result.append(.raise(event))
                    } else {
                        result.append(.sendExternal(event, delayNanoseconds: send.delayNanoseconds, id: send.id))
                    }
                case .cancel(let id, _):
                    if options.delayedSendsAsTimers, let slot = timerSlots[id] {
                        result.append(.cancelTimer(slot: slot))
                    } else {
                        result.append(.cancel(id: id))
                    }
                case .assign(let location, let expr, let line):
                    let target = try prepare(line, "assign") { (model: inout Model) throws(DatamodelRefusal) in try model.location(location) }
                    let value = try prepare(line, "assign") { (model: inout Model) throws(DatamodelRefusal) in try model.value(expr) }
                    result.append(.assign(target, value))
                case .branches(let branches):
                    var compiled: [CompiledBranch<Model>] = []
                    for (index, branch) in branches.enumerated() {
                        let element = index == 0 ? "if" : branch.cond == nil ? "else" : "elseif"
                        let condition = try branch.cond.map { (text) throws(SCXMLError) in
                            try prepare(branch.line, element) { (model: inout Model) throws(DatamodelRefusal) in try model.condition(text) }
                        }
                        compiled.append(CompiledBranch(condition: condition, content: try compile(branch.content)))
                    }
                    result.append(.branches(compiled))
                case .log(let label, let expr, let line):
                    let value = try expr.map { (text) throws(SCXMLError) in
                        try prepare(line, "log") { (model: inout Model) throws(DatamodelRefusal) in try model.value(text) }
                    }
                    result.append(.log(label: label, value))
                }
            }
            return result
        }

        /// Asks the datamodel; its refusal names the file, the line and the element.
        private func prepare<T>(_ line: Int, _ element: String, _ body: (inout Model) throws(DatamodelRefusal) -> T) throws(SCXMLError) -> T {
            var model = self.model
            do {
                return try body(&model)
            } catch {
                throw refusal(error, line: line, element: element)
            }
        }

        /// A datamodel's refusal as the loader reports it; for a chart that names a datamodel
        /// it is read with instead (`ecmascript`), saying that the chart needs that one.
        private func refusal(_ error: DatamodelRefusal, line: Int, element: String) -> SCXMLError {
            var reason = error.reason
            if let named = document.datamodel, SCXMLRunner.readAsFirstDatamodel.contains(named) {
                reason += "; the chart names datamodel=\"\(named)\", which this loader does not have: it reads the chart's "
                    + "expressions with the \(Model.names[0]) datamodel (integers, In(), true and false), and this one needs an "
                    + "ECMAScript datamodel"
            }
            return .unsupported(file: document.file, line: line, element: element, reason: reason)
        }

        /// `prepare`, keeping what the datamodel changed (a declaration).
        private mutating func prepareChanging<T>(_ line: Int, _ element: String, _ body: (inout Model) throws(DatamodelRefusal) -> T) throws(SCXMLError) -> T {
            do {
                return try body(&model)
            } catch {
                throw refusal(error, line: line, element: element)
            }
        }
    }
}
