import ControllerHost
import ControllerSCXML
import Foundation
import Testing

/// What a person is told about a document is one line, bounded, with every control and
/// invisible character escaped, whatever the document holds: the loader quotes a document's
/// text through `.shown`, and `scxml-run` writes every line through `.shownLine`, so no line
/// for a failing file can be two lines or read `OTHER: pass`.
@Suite("Hostile document text in messages")
struct HostileTextTests {
    /// Text as it is written in a document (character references where XML allows the
    /// character only so): line breaks, CR, a tab, C1's CSI, a bidirectional override, a line
    /// separator, a zero-width space, a line forged to read as another file's pass, and 50,000
    /// characters.
    static let tokens: [String] = [
        "&#10;", "a&#13;b", "a&#9;b", "&#x9B;2J", "&#x202E;evil", "a&#x2028;b", "a&#x200B;b",
        "x&#10;other.scxml: pass", "x&#13;other.scxml: pass&#x202E;", String(repeating: "x", count: 50_000),
        String(repeating: "&#10;", count: 5_000),
    ]

    /// Names (of elements and attributes) as XML allows them: long, or with a zero-width joiner.
    static let names: [String] = [String(repeating: "z", count: 50_000), "z\u{200D}z", "z\u{200C}" + String(repeating: "y", count: 100)]

    static let open = "<scxml xmlns=\"http://www.w3.org/2005/07/scxml\" xmlns:conf=\"http://www.w3.org/2005/scxml-conformance\" version=\"1.0\""

    /// Every place a document's text reaches a message: the file name and each document.
    static let documents: [(file: String, text: String)] = {
        var documents: [(String, String)] = []
        func add(_ body: String, root: String = "", file: String = "hostile.scxml") {
            documents.append((file, open + root + ">\n" + body + "\n</scxml>"))
        }
        for t in tokens {
            add("<state id=\"a\"><transition event=\"e\" target=\"\(t)\"/></state>")
            add("<state id=\"a\"><transition event=\"e\" cond=\"\(t)\" target=\"a\"/></state>")
            add("<state id=\"a\"><transition event=\"\(t)\" target=\"a\"/></state>")
            add("<state id=\"a\"><transition event=\"e\" type=\"\(t)\"/></state>")
            add("<state id=\"a\"><onentry><raise event=\"\(t)\"/></onentry></state>")
            add("<state id=\"a\"><onentry><send event=\"e\" delay=\"\(t)\"/></onentry></state>")
            add("<state id=\"a\"><onentry><send event=\"e\" target=\"\(t)\"/></onentry></state>")
            add("<state id=\"a\"><onentry><assign location=\"\(t)\" expr=\"1\"/></onentry></state>")
            add("<datamodel><data id=\"\(t)\" expr=\"1\"/></datamodel><state id=\"a\"/>")
            add("<datamodel><data id=\"d\" expr=\"\(t)\"/></datamodel><state id=\"a\"/>")
            add("<state id=\"\(t)\"/><state id=\"\(t)\"/>")
            add("<state id=\"\(t)\"><transition/></state>")
            add("<state id=\"\(t)\"/>")
            add("<state id=\"a\" initial=\"\(t)\"><state id=\"b\"/></state>")
            add("<state id=\"a\">\(t)</state>")
            add("<state id=\"a\"><x:y xmlns:x=\"\(t)\"/></state>")
            add("<state id=\"a\"/>", root: " datamodel=\"\(t)\"")
            add("<state id=\"a\"/>", root: " binding=\"\(t)\"")
            add("<state id=\"a\" conf:idVal=\"\(t)\"/>", file: "hostile.txml")
        }
        for name in names {
            add("<state id=\"a\"><\(name)/></state>")
            add("<state id=\"a\" \(name)=\"1\"/>")
            add("<state id=\"a\"><onentry><\(name)/></onentry></state>")
            add("<state id=\"a\"><\(name)></state>")  // libxml2: a tag left open, quoting the name
            add("<state id=\"a\" conf:\(name)=\"1\"/>", file: "hostile.txml")
        }
        // libxml2's own refusals: a control character, bytes that are not UTF-8 (its message
        // spans two lines), an invalid character reference, a name it quotes.
        add("<state id=\"a\u{1B}[31m\"/>")
        add("<state id=\"a\"/>\u{1B}]0;title\u{07}")
        documents.append(("latin1.scxml", open + "><state id=\"a\" name=\"\u{E9}\"/></scxml>"))  // é as ISO-8859-1's one byte
        add("<state id=\"a&#x1B;\"/>")
        add("<state id=\"a\"></\(String(repeating: "q", count: 50_000))>")
        return documents
    }()

    /// Escaped (no invisible scalar left), one line, and no longer than a sink writes.
    static func check(_ line: String, _ context: String) {
        let escaped = !line.unicodeScalars.contains { $0.isInvisible }
        #expect(escaped, "\(context): \(line.visible.prefix(300))")
        #expect(line.count <= Quoting.maxLineCharacters + 32, "\(context): \(line.count) characters")
    }

    /// The documents as files in `directory`, then file names a person gave (forged too), each
    /// a document that fails.
    static func files(in directory: URL) throws -> [String] {
        var files: [String] = []
        for (index, document) in documents.enumerated() {
            let path = directory.appendingPathComponent("\(index)-\(document.file)").path
            var bytes = Array(document.text.utf8)
            if document.file == "latin1.scxml" { bytes = bytes.map { $0 == 0xC3 ? 0xE9 : $0 }.filter { $0 != 0xA9 } }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        for name in ["a\u{1B}[31m.scxml", "b\nother.scxml: pass", "c\r.scxml", "d\u{202E}lmxcs.scxml", "e\u{9B}2J.scxml"] {
            let path = directory.appendingPathComponent(name).path
            try scxml("<state id=\"s\"/><final id=\"pass\"/>").write(toFile: path, atomically: true, encoding: .utf8)
            files.append(path)
        }
        return files
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scxml-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("every refusal the loader gives is one bounded, escaped line")
    func loaderMessages() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var errors = 0
        for file in try Self.files(in: directory) {
            let report = SCXMLRunner.run(file: file)
            #expect(report.outcome != .pass, "\(file.visible)")
            guard case .error(let message) = report.outcome else { continue }
            errors += 1
            Self.check(message, file.visible)
            // The program's own words and short quotes: far under a sink's line.
            #expect(message.count < 1_000, "\(file.visible): \(message.prefix(300))")
        }
        #expect(errors > 0)
    }

    @Test("scxml-run: one line per file, each bounded and escaped; no failing file's line reads as a pass")
    func commandLines() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var files = try Self.files(in: directory)
        let passing = "\(w3cDirectory)/test144.txml"
        files.append(passing)

        let run = try ScxmlRunCLITests.run(files)
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count == files.count, "\(lines.count) lines for \(files.count) files")
        for (index, line) in lines.enumerated() {
            Self.check(line, "line \(index)")
            if index == files.count - 1 {
                #expect(line == "\(passing): pass")
            } else {
                // The line for a failing file starts with its own name and says so.
                #expect(line.hasPrefix(files[index].shownLine.prefix(40)), "line \(index): \(line.prefix(200))")
                #expect(!line.hasSuffix(": pass"), "line \(index): \(line.suffix(200))")
                #expect(line.contains(": error: ") || line.contains(": fail ("), "line \(index): \(line.prefix(200))")
            }
        }

        let option = try ScxmlRunCLITests.run(["--x\nother.scxml: pass\u{1B}[2J", passing])
        #expect(option.status == 2 && option.stdout.isEmpty)
        for line in option.stderr.split(separator: "\n") { Self.check(String(line), "stderr") }
        #expect(option.stderr.hasPrefix("scxml-run: unknown option --x\\u{A}other.scxml: pass\\u{1B}[2J\n"), "\(option.stderr.visible)")
    }
}
