import ControllerFSM
import ControllerHost

/// Reads, loads and runs documents: the one entry point `scxml-run` and the tests use.
public enum SCXMLRunner {
    /// The datamodels a document may name, the first the default (for a document that names
    /// none, and what a `.txml`'s `conf:datamodel` becomes). A second datamodel is one more
    /// type here.
    public static let datamodels: [any SCXMLDatamodel.Type] = [IntegerDatamodel.self]

    /// Whether `path` is in the W3C's test language (`.txml`), whose `conf:` names are expanded.
    public static func isTestLanguage(_ path: String) -> Bool { path.hasSuffix(".txml") }

    /// The document at `path`: read with libxml2, `conf:` expanded for a `.txml`.
    public static func document(file path: String) throws(SCXMLError) -> SCXMLDocument {
        try document(LibXML2Reader.read(file: path), file: path)
    }

    /// The document in `text`, named `file` (its extension says whether it is a `.txml`).
    public static func document(text: String, file: String) throws(SCXMLError) -> SCXMLDocument {
        try document(LibXML2Reader.read(text: text, file: file), file: file)
    }

    private static func document(_ root: ParsedElement, file: String) throws(SCXMLError) -> SCXMLDocument {
        let expanded = isTestLanguage(file) ? try TestLanguage.expand(root, datamodel: datamodels[0].names[0], file: file) : root
        let (chart, notes) = ForeignMarkup.strip(expanded, file: file)
        var document = try DocumentReader.read(chart, file: file)
        document.notes = notes
        return document
    }

    /// The `datamodel` names of charts whose expressions the first datamodel reads when it can
    /// (an editor writes `ecmascript` for charts that only compare numbers and call `In()`); an
    /// expression it cannot read is refused, saying the chart needs the datamodel it names.
    public static let readAsFirstDatamodel = ["ecmascript"]

    /// The datamodel `document` names.
    public static func datamodel(of document: SCXMLDocument) throws(SCXMLError) -> any SCXMLDatamodel.Type {
        guard let name = document.datamodel else { return datamodels[0] }
        if readAsFirstDatamodel.contains(name) { return datamodels[0] }
        guard let model = datamodels.first(where: { $0.names.contains(name) }) else {
            let known = datamodels.flatMap { $0.names }.map { "\"\($0)\"" }.joined(separator: ", ")
            throw .unsupported(
                file: document.file, line: document.line, element: "scxml",
                reason: "datamodel=\"\(name.shown)\" is not one this loader has (\(known))")
        }
        return model
    }

    /// Runs the file at `path` to its end; a document that cannot be read or loaded, or an
    /// events script that names an event no transition takes, is an `.error` outcome naming
    /// the file, line and element.
    public static func run(file path: String, options: SCXMLRunOptions = SCXMLRunOptions()) -> SCXMLRunReport {
        do {
            return try run(try document(file: path), options: options)
        } catch {
            return SCXMLRunReport(outcome: .error(error.description), externalEvents: 0, time: .zero, log: [])
        }
    }

    /// Loads `document` with its datamodel and runs it (the machine binds its own symbols).
    public static func run(_ document: SCXMLDocument, options: SCXMLRunOptions = SCXMLRunOptions()) throws(SCXMLError) -> SCXMLRunReport {
        let model = try datamodel(of: document)
        try options.events?.check(against: document)
        var report = try run(document, model: model, options: options)
        report.notes = document.notes
        return report
    }

    private static func run<Model: SCXMLDatamodel>(
        _ document: SCXMLDocument, model _: Model.Type, options: SCXMLRunOptions
    ) throws(SCXMLError) -> SCXMLRunReport {
        try MachineBuilder<Model>.build(document, externalEvents: options.events?.eventNames ?? []).run(options: options)
    }
}
