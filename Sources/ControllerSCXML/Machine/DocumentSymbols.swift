import ControllerFSM

/// The states and events of one document, by number. The runtime is generic over enums known
/// when it is compiled; a document's are known only when it is loaded, so its states and events
/// are numbers (``ChartState``, ``ChartEvent``) whose cases and names come from a table like
/// this one, found through the numbers' *space* (``DocumentSymbolSpace``).
public struct DocumentSymbolTable: Sendable {
    /// State ids by state number (document order).
    public let states: [String]
    /// Event names by event number.
    public let events: [String]
    let stateNumbers: [Int]
    let eventNumbers: [Int]
    /// Numbers by name, the first of a name (a document's ids and events are each unique; the
    /// state around them all, `(scxml)`, may share an id).
    private let stateByName: [String: Int]
    private let eventByName: [String: Int]

    public init(states: [String], events: [String]) {
        self.states = states
        self.events = events
        stateNumbers = Array(states.indices)
        eventNumbers = Array(events.indices)
        stateByName = Self.numbers(states)
        eventByName = Self.numbers(events)
    }

    public static let empty = DocumentSymbolTable(states: [], events: [])

    /// The number of the event `name`, nil when the document has none of that name.
    public func eventNumber(named name: String) -> Int? { eventByName[name] }
    /// The number of the state `id`, nil when the document has none.
    public func stateNumber(id: String) -> Int? { stateByName[id] }

    public func event(named name: String) -> DocumentEvent? { eventNumber(named: name).map(DocumentEvent.init(number:)) }
    public func state(id: String) -> DocumentState? { stateNumber(id: id).map(DocumentState.init(number:)) }

    /// The name of state `number`, "state N" when there is none.
    public func stateName(_ number: Int) -> String { states.indices.contains(number) ? states[number] : "state \(number)" }
    /// The name of event `number`, "event N" when there is none.
    public func eventName(_ number: Int) -> String { events.indices.contains(number) ? events[number] : "event \(number)" }

    private static func numbers(_ names: [String]) -> [String: Int] {
        Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// Where the numbers of a ``ChartState`` and a ``ChartEvent`` find their names and their cases:
/// a type of the caller's, so that the names travel with the machine's own types.
///
/// - ``TaskBoundSymbols`` reads a task-local table: for tools that run many documents in one
///   process, one at a time per task (`scxml-run`, the conformance tests).
/// - A controller made of a chart has a space of its own, set once when the chart is loaded and
///   read from any thread after (ControllerChart's `ChartSpace`): a daemon's threads share no
///   task.
public protocol DocumentSymbolSpace: Sendable {
    /// The document's states and events.
    static var symbols: DocumentSymbolTable { get }
}

/// The space of a task-local table, bound with `DocumentSymbols.$table.withValue(…)`. The loader
/// and the machine bind it themselves (`MachineBuilder.build`, `SCXMLMachine.run`,
/// `SCXMLMachine.withSymbols`): a caller needs no scope of its own.
public enum TaskBoundSymbols: DocumentSymbolSpace {
    public static var symbols: DocumentSymbolTable { DocumentSymbols.table }
}

public enum DocumentSymbols {
    /// The table of the document being loaded or run in this task (``TaskBoundSymbols``).
    @TaskLocal public static var table = DocumentSymbolTable.empty
}

/// A state of a document, by its number in document order; its name and the document's other
/// states come from `Space`.
public struct ChartState<Space: DocumentSymbolSpace>: MachineSymbol, Hashable {
    public let rawValue: Int

    public init?(rawValue: Int) {
        guard Space.symbols.states.indices.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    init(number: Int) { rawValue = number }

    public static var allCases: [ChartState] { Space.symbols.stateNumbers.map(ChartState.init(number:)) }

    public var name: String { Space.symbols.stateName(rawValue) }
}

/// An event of a document, by its number in the document's event universe; its name and the
/// document's other events come from `Space`.
public struct ChartEvent<Space: DocumentSymbolSpace>: MachineSymbol, Hashable {
    public let rawValue: Int

    public init?(rawValue: Int) {
        guard Space.symbols.events.indices.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    init(number: Int) { rawValue = number }

    public static var allCases: [ChartEvent] { Space.symbols.eventNumbers.map(ChartEvent.init(number:)) }

    public var name: String { Space.symbols.eventName(rawValue) }
}

/// A state of the document bound to the current task (``TaskBoundSymbols``).
public typealias DocumentState = ChartState<TaskBoundSymbols>
/// An event of the document bound to the current task (``TaskBoundSymbols``).
public typealias DocumentEvent = ChartEvent<TaskBoundSymbols>
