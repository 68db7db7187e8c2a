import ControllerSCXML

/// The directory of the W3C tests, beside this file (read by path, not bundled).
let w3cDirectory: String = {
    let here = "\(#filePath)"
    return String(here[..<here.lastIndex(of: "/")!]) + "/W3C"
}()

/// A document around `body`, in the SCXML namespace.
func scxml(_ body: String, attributes: String = "") -> String {
    """
    <scxml xmlns="http://www.w3.org/2005/07/scxml" xmlns:conf="http://www.w3.org/2005/scxml-conformance" version="1.0" \(attributes)>
    \(body)
    </scxml>
    """
}

/// Reads and runs `text` as the file `file` (its extension chooses .txml expansion).
func run(_ text: String, file: String = "test.scxml") -> SCXMLRunReport {
    do {
        return try SCXMLRunner.run(SCXMLRunner.document(text: text, file: file))
    } catch {
        return SCXMLRunReport(outcome: .error(error.description), externalEvents: 0, time: .zero, log: [])
    }
}

/// The error reading and loading `text` gives, nil when it loads.
func refusal(_ text: String, file: String = "test.scxml") -> SCXMLError? {
    do {
        let document = try SCXMLRunner.document(text: text, file: file)
        _ = try SCXMLRunner.run(document)
        return nil
    } catch {
        return error
    }
}
