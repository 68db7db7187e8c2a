import ControllerTestSupport
import Foundation
import Testing
@testable import ControllerHost

/// Every JSON record the project prints by hand goes through `JSONLine`: whatever a chip's
/// label, a role or a reason holds, the record parses as one object with the fields it was
/// given, on one line.
@Suite("JSONLine: the one writer of hand-made JSON records")
struct JSONLineTests {
    static let hostile = [
        "plain", #"quote " and backslash \"#, "line\nbreak", "cr\rreturn", "\u{1B}[2Jescape", "bidi \u{202E}override",
        #"","forged":1,"x":""#, "tab\tand\u{0}nul", "astral 𝄞 and \u{200B}zero width", String(repeating: "long ", count: 2_000),
    ]

    @Test("hostile strings as keys and values parse back as themselves, one line each")
    func hostileText() throws {
        for text in Self.hostile {
            let label = text
            let line = JSONLine(type: "ready").string("chip", label).int("originUnixNanoseconds", 0).text
            #expect(!line.contains("\n") && !line.contains("\r"), "\(line.prefix(80))")
            #expect(line.unicodeScalars.allSatisfy { !$0.isInvisible }, "every invisible scalar escaped")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object.count == 3, "no field forged: \(object.keys)")
            #expect(object["type"] as? String == "ready" && object["chip"] as? String == text)
            #expect(object["originUnixNanoseconds"] as? Int == 0)
            let keyed = JSONLine().level(text, true).text
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(keyed.utf8)) as? [String: Int])
            #expect(parsed == [text: 1])
        }
    }

    @Test("fields in the order given, type first; nested objects; seconds as decimals")
    func shape() {
        let line = JSONLine(type: "summary").seconds("t", .milliseconds(1_500)).object("counters", JSONLine().int("coins", 3).int("passages", 2))
        #expect(line.text == #"{"type":"summary","t":1.5,"counters":{"coins":3,"passages":2}}"#)
        #expect(JSONLine().text == "{}")
    }

    @Test("no source file prints JSON it built by hand: every record goes through JSONLine")
    func noHandBuiltRecords() throws {
        let sources = URL(fileURLWithPath: repositoryPath("Sources"))
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!.compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" }
        #expect(files.count > 100)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains(#"print(#"{"#) {
                Issue.record("\(file.lastPathComponent):\(number + 1) prints JSON built by hand; build it with JSONLine")
            }
        }
    }
}
