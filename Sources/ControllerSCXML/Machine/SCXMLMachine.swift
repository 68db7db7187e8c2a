import ControllerFSM

/// A document made into a machine on the runtime: its compiled table, the context it starts
/// with (every `<data>` bound), and the states whose entry ends the run. Made and run inside
/// `DocumentSymbols.$table.withValue(symbols)`.
public struct SCXMLMachine<Model: SCXMLDatamodel>: Sendable {
    public typealias Context = SCXMLContext<Model>
    public let document: SCXMLDocument
    public let symbols: DocumentSymbolTable
    public let table: TransitionTable<DocumentState, DocumentEvent, Context>
    public let context: Context
    /// The final states directly inside `<scxml>`: entering one ends the run.
    public let finals: [DocumentState]
    /// What the runtime noticed but ran anyway (states nothing reaches, rows never taken).
    public let warnings: [String]
}
