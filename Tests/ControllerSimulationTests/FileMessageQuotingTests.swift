import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// What an error quotes from a file reads as the file wrote it, and only so much of it (issue
/// 18, item 13): non-ASCII keys whole, not byte by byte; a duplicate quoted key as written;
/// and any token cut at ``Quoting/maxQuotedCharacters`` with its length.
@Suite("File errors quote the file faithfully and briefly")
struct FileMessageQuotingTests {
    @Test("a non-ASCII character where a key goes is quoted whole", arguments: [
        ("[inputs.cöin]\nline = 0\n", #"x.toml: line 1, column 10: "ö" cannot follow a key here"#),
        ("[inputs.€]\n", #"x.toml: line 1, column 9: "€" cannot start a key or a [table] name"#),
        ("x = 1\nö = 2\n", #"x.toml: line 2, column 1: "ö" cannot start a key or a [table] name"#),
    ])
    func nonASCIIKeyCharacter(text: String, message: String) {
        let error = #expect(throws: BoardFileError.self) { try BoardFile.parse(text, file: "x.toml") }
        #expect(error?.description.hasPrefix(message) == true, "\(String(describing: error))")
        #expect(error?.description.contains("Ã") == false && error?.description.contains("â") == false, "\(String(describing: error))")
    }

    @Test("a duplicate quoted key is quoted as the file writes it", arguments: [
        ("[board]\n[inputs.\"cöin\"]\nline = 1\n[inputs.\"cöin\"]\n", #"line 4, column 1: error while parsing table header: cannot redefine existing table 'inputs."cöin"'"#),
        ("[inputs.\"co in\"]\n[inputs.\"co in\"]\n", #"line 2, column 1: error while parsing table header: cannot redefine existing table 'inputs."co in"'"#),
        ("a.\"cöin\" = 1\na.\"cöin\" = 2\n", #"line 2, column 12: error while parsing key-value pair: cannot redefine existing integer 'a."cöin"'"#),
    ])
    func duplicateQuotedKey(text: String, message: String) {
        let error = #expect(throws: BoardFileError.self) { try BoardFile.parse(text, file: "x.toml") }
        #expect(error?.description.hasPrefix("x.toml: \(message)") == true, "\(String(describing: error))")
    }

    @Test("a 15 MB token in a scenario is quoted to its first characters and its length")
    func hugeScenarioToken() {
        let token = String(repeating: "x", count: 15 * 1024 * 1024)
        let error = #expect(throws: ScenarioError.self) {
            try Scenario<TurnstileApplication>.parse("0 coin\n1 \(token)\n", file: "s.txt", vocabulary: TurnstileSimulation.vocabulary(for: .defaultSim))
        }
        let shown = String(repeating: "x", count: Quoting.maxQuotedCharacters)
        #expect(error?.reason == "unknown action \"\(shown)… (15728640 bytes)\"", "\(String(describing: error).prefix(300))")
    }

    @Test("every token a scenario error quotes is bounded", arguments: [
        "1 TOKEN\n", "TOKEN coin\n", "1 coin TOKEN\n", "1 push TOKEN\n", "1 push hold TOKEN\n", "1 emergency TOKEN\n",
        "1 expect TOKEN\n", "1 expect state TOKEN\n", "1 expect credit TOKEN\n", "1 expect output lock TOKEN\n", "1 end\n2 TOKEN\n",
    ])
    func scenarioTokensBounded(template: String) {
        let token = String(repeating: "9", count: 10_000)
        let error = #expect(throws: ScenarioError.self) {
            try Scenario<TurnstileApplication>.parse(template.replacingOccurrences(of: "TOKEN", with: token), file: "s.txt",
                               vocabulary: TurnstileSimulation.vocabulary(for: .defaultSim))
        }
        #expect((error?.description.count ?? 0) < 400, "\(String(describing: error).prefix(400))")
        #expect(error?.description.contains("(10000 bytes)") == true, "\(String(describing: error).prefix(400))")
    }

    @Test("every token a board error quotes is bounded", arguments: [
        ("[board]\nname = \"bench\"", "[board]\nTOKEN = 1\nname = \"bench\""),
        ("[inputs.coin]\nline = 0", "[inputs.coin]\nline = 0\nbias = \"TOKEN\""),
        ("[inputs.coin]\nline = 0", "[inputs.coin]\nline = 0\ndebounce = \"TOKENms\""),
        ("[inputs.coin]\nline = 0", "[inputs.coin]\nline = 0\ndebounce = \"1TOKEN\""),
        ("[inputs.coin]\nline = 0", "[inputs.coin]\nline = 0\nactive_low = \"TOKEN\""),
        ("[board]\nname = \"bench\"", "[board]\nname = \"TOKEN\""),
    ])
    func boardTokensBounded(old: String, new: String) {
        let token = String(repeating: "a", count: 10_000)
        let error = #expect(throws: BoardFileError.self) {
            try BoardFile.parse(minimalBoard.replacingOccurrences(of: old, with: new.replacingOccurrences(of: "TOKEN", with: token)), file: "x.toml")
        }
        #expect((error?.description.count ?? 0) < 400, "\(String(describing: error).prefix(400))")
        #expect(error?.description.contains("bytes)") == true, "\(String(describing: error).prefix(400))")
    }
}
