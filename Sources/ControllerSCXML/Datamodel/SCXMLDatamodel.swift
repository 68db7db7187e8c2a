/// The one interface between the loader and a datamodel: at load time, turn the text of a
/// condition, a value expression or a location into the datamodel's own prepared form (or say
/// why it cannot); at run time, evaluate those and assign, on values the datamodel keeps
/// itself. The loader, the machine it builds and the driver know nothing else of it: a second
/// datamodel (ECMAScript on an embedded engine) is a second conforming type, nothing more.
///
/// A datamodel is a value in the machine's context, copied with it. One that keeps its values
/// in an engine's heap (a reference) keeps that heap's identity in the value.
public protocol SCXMLDatamodel: Sendable {
    associatedtype Condition: Sendable
    associatedtype ValueExpression: Sendable
    associatedtype Location: Sendable
    associatedtype Value: Sendable

    /// The `datamodel=` values it answers to, its own name first.
    static var names: [String] { get }

    /// An empty datamodel for a session; the system variables `_name` and `_sessionid` come with
    /// `scope`.
    init(scope: SCXMLScope)

    /// Load time: declares the `<data>` `id` (every one, in document order, before any
    /// expression is prepared), unbound until assigned.
    mutating func declare(_ id: String) throws(DatamodelRefusal) -> Location
    func condition(_ text: String) throws(DatamodelRefusal) -> Condition
    func value(_ text: String) throws(DatamodelRefusal) -> ValueExpression
    func location(_ text: String) throws(DatamodelRefusal) -> Location

    /// Run time. An error becomes SCXML's `error.execution` (a condition that fails is false).
    func evaluateCondition(_ condition: Condition, in configuration: SCXMLConfiguration) throws(DatamodelExecutionError) -> Bool
    func evaluateValue(_ value: ValueExpression, in configuration: SCXMLConfiguration) throws(DatamodelExecutionError) -> Value
    mutating func assign(_ value: Value, to location: Location) throws(DatamodelExecutionError)
    /// The system variable `_event`: set to the event a transition answers before its content
    /// runs (a datamodel without `_event` ignores it).
    mutating func setEvent(name: String)
    /// A value as `<log>` prints it.
    func describe(_ value: Value) -> String
}

/// What a datamodel is told when it is made: the document's states (for `In(id)`) and the
/// session's system variables.
public struct SCXMLScope: Sendable {
    /// Every state's id, by state number (document order).
    public let stateIDs: [String]
    /// `_name`: the `<scxml name=…>`, nil without one.
    public let name: String?
    /// `_sessionid`.
    public let sessionID: String

    /// Numbers by id, the first state of an id.
    private let stateNumbers: [String: Int]

    public init(stateIDs: [String], name: String?, sessionID: String) {
        self.stateIDs = stateIDs
        self.name = name
        self.sessionID = sessionID
        stateNumbers = Dictionary(stateIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func stateNumber(id: String) -> Int? { stateNumbers[id] }
}

/// The states that are active now, by state number: what `In(id)` reads. Every state's entry
/// work marks it first and its exit work clears it last, as SCXML adds a state to the
/// configuration before its `<onentry>` and removes it after its `<onexit>`.
public struct SCXMLConfiguration: Sendable, Equatable {
    public private(set) var active: [Bool]

    public init(stateCount: Int) { active = Array(repeating: false, count: stateCount) }

    public func isActive(_ state: Int) -> Bool { active.indices.contains(state) && active[state] }
    mutating func set(_ state: Int, active value: Bool) { active[state] = value }
}

/// Why a datamodel cannot read an expression; the loader adds the file, line and element.
public struct DatamodelRefusal: Error, Sendable, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// Why an expression failed while the machine ran: raised as `error.execution`.
public struct DatamodelExecutionError: Error, Sendable, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}
