import ControllerFSM

/// A document run by `scxml-run` and the tests: its states and events in the task-bound space.
public typealias SCXMLMachine<Model: SCXMLDatamodel> = ChartMachine<Model, TaskBoundSymbols>

/// A document made into a machine on the runtime: its compiled table, the context it starts
/// with (every `<data>` bound), and the states whose entry ends the run; its states and events
/// are numbers of `Space`.
///
/// It carries its own states' and events' names (`symbols`), and binds them itself
/// (`DocumentSymbols.$table`) around everything of its that reaches the runtime: running it,
/// drawing it, `withSymbols`. It can be used anywhere, from any task, with no scope of the
/// caller's; outside its own scope, a `DocumentState`'s `name` is only "state N". (A space of
/// its own, a chart controller's, holds the names wherever the machine runs.)
public struct ChartMachine<Model: SCXMLDatamodel, Space: DocumentSymbolSpace>: Sendable, CustomStringConvertible {
    public typealias Context = SCXMLContext<Model>
    public typealias State = ChartState<Space>
    public typealias Event = ChartEvent<Space>
    public let document: SCXMLDocument
    public let symbols: DocumentSymbolTable
    public let table: TransitionTable<State, Event, Context>
    public let context: Context
    /// The final states directly inside `<scxml>`: entering one ends the run.
    public let finals: [State]
    /// What the runtime noticed but ran anyway (states nothing reaches, rows never taken).
    public let warnings: [String]

    /// Every state's id, by state number (document order; `(scxml)` last when there is one).
    public var stateNames: [String] { symbols.states }
    /// Every event's name, by event number.
    public var eventNames: [String] { symbols.events }

    public func name(of state: State) -> String { symbols.stateName(state.rawValue) }

    public func name(of event: Event) -> String { symbols.eventName(event.rawValue) }

    /// The machine drawn by the runtime: Graphviz, Mermaid, or its structure as SCXML.
    public func dot() -> String { withSymbols { table.dot(name: drawingName) } }
    public func mermaid() -> String { withSymbols { table.mermaid() } }
    public func scxml() -> String { withSymbols { table.scxml(name: drawingName) } }

    /// `body`, with the machine's states and events bound: for anything else of the runtime's
    /// that names them (`State(rawValue:)`, `allCases`, a `StateMachine` of `table`).
    public func withSymbols<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let result: Result<T, Failure> = DocumentSymbols.$table.withValue(symbols) {
            do throws(Failure) {
                return .success(try body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// "FILE: N states, M events, R rows", no text of the document's but its path.
    public var description: String {
        "\(document.file): \(symbols.states.count) states, \(symbols.events.count) events, \(table.rowInfo.count) rows"
    }

    private var drawingName: String { document.name ?? "machine" }
}

extension ChartMachine where Space == TaskBoundSymbols {
    /// Runs the machine to its end in virtual time (`SCXMLDriver`), inside its own symbols.
    public func run(options: SCXMLRunOptions = SCXMLRunOptions()) -> SCXMLRunReport {
        SCXMLDriver<Model>.run(self, options: options)
    }
}
