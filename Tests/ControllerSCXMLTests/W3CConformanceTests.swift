import ControllerSCXML
import ControllerTestSupport
import Foundation
import Testing

/// The W3C SCXML 1.0 conformance suite, as the W3C's manifest gives it, read from the shared
/// folder (`w3cDirectory`, never copied in): every mandatory automatic test either passes —
/// the ones a runtime with hierarchy, history, parallel regions and the integer datamodel can
/// run, listed here — or is refused by file, line and element. None may end wrong (`fail`), and
/// one that starts passing is named, to be listed.
@Suite("W3C SCXML conformance tests")
struct W3CConformanceTests {
    /// The mandatory automatic tests (`conformance="mandatory" manual="false"`), by file name.
    static let mandatoryAutomatic: [String] = {
        guard let manifest = try? String(contentsOfFile: "\(w3cDirectory)/manifest.xml", encoding: .utf8),
              let test = try? Regex(#"<test id="[^"]+"\s+conformance="mandatory"\s+manual="false"[^>]*>\s*<start uri="([^"]+)""#)
        else { return [] }
        return manifest.matches(of: test).compactMap { match in
            match.output[1].substring.map { String($0.split(separator: "/").last!) }
        }
    }()

    static let expectedCount = 159

    /// The tests this runtime passes: flat states; compound states, history, `<initial>`,
    /// `done.state` and internal transitions; parallel regions; a `<send>` that cannot be
    /// delivered raising its error when it runs — with the integer datamodel.
    static let passing: Set<String> = [
        "144", "147", "148", "149", "158", "159", "185", "189", "194", "199", "200", "208", "279", "287", "288", "310",
        "348", "355", "364", "372", "375", "376", "377", "378", "387", "388", "399", "403a", "404", "405", "406", "407",
        "409", "411", "412", "413", "416", "417", "419", "421", "423", "436", "495", "496", "503", "504", "505", "506",
        "521", "533", "550", "570", "576", "579", "580",
    ].reduce(into: []) { $0.insert("test\($1).txml") }

    @Test("the suite is there, and its manifest lists the 159 mandatory automatic tests")
    func suiteIsThere() throws {
        #expect(FileManager.default.fileExists(atPath: "\(w3cDirectory)/manifest.xml"),
                "no W3C SCXML suite (its manifest.xml) in any of \(w3cCandidates); set SCXML_W3C_DIR to its folder")
        #expect(Self.mandatoryAutomatic.count == Self.expectedCount, "\(Self.mandatoryAutomatic.count)")
        #expect(Self.passing.isSubset(of: Set(Self.mandatoryAutomatic)))
    }

    @Test("passes, or is refused by file and line: never wrong", arguments: mandatoryAutomatic)
    func conforms(_ name: String) {
        let report = SCXMLRunner.run(file: "\(w3cDirectory)/\(name)")
        if Self.passing.contains(name) {
            #expect(report.outcome == .pass, "\(name): \(report.outcome)")
            return
        }
        switch report.outcome {
        case .pass: Issue.record("\(name) passes now: add it to W3CConformanceTests.passing")
        case .fail(let states): Issue.record("\(name) ended wrong, in \(states)")
        case .error(let reason): #expect(reason.hasPrefix("\(w3cDirectory)/\(name):"), "\(name): refused without its file and line: \(reason)")
        }
    }

    /// Where the docs state the counts, they are this suite's: the tests it passes (each checked
    /// above to pass, and no other to), and the ones it refuses.
    @Test("docs/reference/scxml.md's counts are the suite's")
    func documentedCounts() throws {
        let reference = try String(contentsOfFile: repositoryPath("docs/reference/scxml.md"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        let passed = "Of the W3C's \(Self.expectedCount) SCXML 1.0 mandatory automatic tests, the \(Self.passing.count) that"
        let refused = "The other \(Self.expectedCount - Self.passing.count) are refused by file, line and element"
        #expect(reference.contains(passed), "docs/reference/scxml.md should say \"\(passed)\"")
        #expect(reference.contains(refused), "docs/reference/scxml.md should say \"\(refused)\"")
        // The refusals by reason, as the docs give them.
        var byReason: [String: Int] = [:]
        for name in Self.mandatoryAutomatic where !Self.passing.contains(name) {
            guard case .error(let reason) = SCXMLRunner.run(file: "\(w3cDirectory)/\(name)").outcome else { continue }
            byReason[Self.reasonClass(reason), default: 0] += 1
        }
        let reasons = "\(byReason["invoke", default: 0]) need `<invoke>` and another session, "
            + "\(byReason["values", default: 0]) values the integer datamodel does not have"
            + " and \(byReason["xml", default: 0]) an XML datamodel"
        #expect(reference.contains(reasons), "docs/reference/scxml.md should say \"\(reasons)\"")
        #expect(byReason.values.reduce(0, +) == Self.expectedCount - Self.passing.count, "\(byReason)")
    }

    /// What a refusal needs: `invoke` (another session), `xml` (an XML datamodel), or `values`
    /// (what the integer datamodel has not: strings, arrays, event fields, scripts).
    static func reasonClass(_ reason: String) -> String {
        if reason.contains(": <invoke>: ") { return "invoke" }
        if reason.contains("XML datamodel") { return "xml" }
        return "values"
    }
}
