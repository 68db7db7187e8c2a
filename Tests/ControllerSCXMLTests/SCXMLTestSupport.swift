import Foundation
import ControllerSCXML

/// Where the W3C's SCXML 1.0 test suite is read from, never copied into this repository (the
/// tests are the W3C's): `$SCXML_W3C_DIR` when set, else the first `shared/scxml-w3c` holding
/// a `manifest.xml` beside the repository or a folder above it (`../shared/scxml-w3c` for a
/// checkout beside the workshop's shared folder). `W3CSuiteTests` fails, naming where it
/// looked, when none is there.
let w3cCandidates: [String] = {
    if let set = ProcessInfo.processInfo.environment["SCXML_W3C_DIR"], !set.isEmpty { return [set] }
    let here = "\(#filePath)"
    var folder = String(here[..<here.range(of: "/Tests/")!.lowerBound])
    var candidates: [String] = []
    while let slash = folder.lastIndex(of: "/"), !folder.isEmpty {
        folder = String(folder[..<slash])
        candidates.append((folder.isEmpty ? "" : folder) + "/shared/scxml-w3c")
    }
    return candidates
}()

let w3cDirectory: String = w3cCandidates.first { FileManager.default.fileExists(atPath: $0 + "/manifest.xml") } ?? w3cCandidates[0]

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
