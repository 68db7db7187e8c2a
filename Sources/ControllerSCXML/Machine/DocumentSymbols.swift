import ControllerFSM

/// The states and events of the document being run. The runtime is generic over enums known
/// when it is compiled; a document's are known only when it is loaded, so `DocumentState` and
/// `DocumentEvent` are numbers whose cases and names come from this table, bound with
/// `DocumentSymbols.$table.withValue(…)` (a task-local value: each run, on any thread, sees its
/// own document). The loader and the machine bind it themselves (`MachineBuilder.build`,
/// `SCXMLMachine.run`, `SCXMLMachine.withSymbols`): a caller needs no scope of its own.
public struct DocumentSymbolTable: Sendable {
    /// State ids by state number (document order).
    public let states: [String]
    /// Event names by event number.
    public let events: [String]
    let stateCases: [DocumentState]
    let eventCases: [DocumentEvent]
    /// Numbers by name, the first of a name (a document's ids and events are each unique; the
    /// state around them all, `(scxml)`, may share an id).
    private let stateNumbers: [String: Int]
    private let eventNumbers: [String: Int]

    public init(states: [String], events: [String]) {
        self.states = states
        self.events = events
        stateCases = states.indices.map(DocumentState.init(number:))
        eventCases = events.indices.map(DocumentEvent.init(number:))
        stateNumbers = Self.numbers(states)
        eventNumbers = Self.numbers(events)
    }

    public static let empty = DocumentSymbolTable(states: [], events: [])

    public func event(named name: String) -> DocumentEvent? { eventNumbers[name].map(DocumentEvent.init(number:)) }
    public func state(id: String) -> DocumentState? { stateNumbers[id].map(DocumentState.init(number:)) }

    private static func numbers(_ names: [String]) -> [String: Int] {
        Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

public enum DocumentSymbols {
    /// The table of the document being loaded or run.
    @TaskLocal public static var table = DocumentSymbolTable.empty
}

/// A state of the document, by its number in document order.
public struct DocumentState: MachineSymbol, Hashable {
    public let rawValue: Int

    public init?(rawValue: Int) {
        guard DocumentSymbols.table.states.indices.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    init(number: Int) { rawValue = number }

    public static var allCases: [DocumentState] { DocumentSymbols.table.stateCases }

    public var name: String {
        let states = DocumentSymbols.table.states
        return states.indices.contains(rawValue) ? states[rawValue] : "state \(rawValue)"
    }
}

/// An event of the document, by its number in the document's event universe.
public struct DocumentEvent: MachineSymbol, Hashable {
    public let rawValue: Int

    public init?(rawValue: Int) {
        guard DocumentSymbols.table.events.indices.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    init(number: Int) { rawValue = number }

    public static var allCases: [DocumentEvent] { DocumentSymbols.table.eventCases }

    public var name: String {
        let events = DocumentSymbols.table.events
        return events.indices.contains(rawValue) ? events[rawValue] : "event \(rawValue)"
    }
}
