import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile

/// The names a board file gives leave it for log lines, the recording's header, `ctl status`
/// and the kernel's 32-byte fields: each is refused where it enters unless
/// it is printable and fits where it goes.
@Suite("Board files: names are printable and fit where they go")
struct BoardFileNameTests {
    @Test("a name with a control or invisible character is refused by key path", arguments: [
        ("name = \"bench\"", "name = \"sim\\n0.5 fault\\n#\"", #"board.name: "sim\u{A}0.5 fault\u{A}#" holds \u{A}, a control or invisible character"#),
        ("name = \"bench\"", "name = \"a\\u001B[2Jb\"", #"board.name: "a\u{1B}[2Jb" holds \u{1B}"#),
        ("name = \"bench\"", "name = \"a\\u200Bb\"", #"board.name: "a\u{200B}b" holds \u{200B}"#),
        ("chip = \"gpiochip0\"", "chip = \"chip\\tx\"", #"board.chip: "chip\u{9}x" holds \u{9}"#),
        ("chip = \"gpiochip0\"", "chip = \"/dev/gpio\\rchip0\"", #"board.chip: "/dev/gpio\u{D}chip0" holds \u{D}"#),
        ("chip = \"gpiochip0\"", "chip = \"gpiochip0\"\nconsumer = \"t\\u0085d\"", #"board.consumer: "t\u{85}d" holds \u{85}"#),
        ("[inputs.coin]\nline = 0", "[inputs.coin]\nline = \"CO\\u009BIN\"", #"inputs.coin.line: "CO\u{9B}IN" holds \u{9B}"#),
    ])
    func invisibleCharacterRefused(old: String, new: String, message: String) {
        let error = #expect(throws: BoardFileError.self) {
            try BoardFile.parse(minimalBoard.replacingOccurrences(of: old, with: new), file: "x.toml")
        }
        #expect(error?.description.hasPrefix("x.toml: \(message)") == true, "\(String(describing: error))")
    }

    /// Each length at its boundary: the longest accepted, one more refused.
    @Test("a name longer than where it goes keeps is refused; the longest that fits is read", arguments: [
        ("name = \"bench\"", "name", 64, "a board name is at most 64 characters"),
        ("chip = \"gpiochip0\"", "chip", 31, "the kernel keeps at most 31 bytes of a GPIO name"),
        ("chip = \"gpiochip0\"", "consumer", 31, "the kernel keeps at most 31 bytes of a GPIO name"),
        ("[inputs.coin]\nline = 0", "inputs.coin.line", 31, "the kernel keeps at most 31 bytes of a GPIO name"),
    ])
    func lengthBoundary(old: String, key: String, longest: Int, hint: String) throws {
        func board(_ length: Int) -> String {
            let value = String(repeating: "é", count: key == "name" ? length : 0)
                + String(repeating: "a", count: key == "name" ? 0 : length)
            let line = key == "consumer" ? "\(old)\nconsumer = \"\(value)\"" : "\(old.split(separator: "=")[0])= \"\(value)\""
            return minimalBoard.replacingOccurrences(of: old, with: line)
        }
        _ = try BoardFile.parse(board(longest), file: "x.toml")
        let error = #expect(throws: BoardFileError.self) { try BoardFile.parse(board(longest + 1), file: "x.toml") }
        #expect(error?.description.hasPrefix("x.toml: board.\(key): ") == true || error?.description.hasPrefix("x.toml: \(key): ") == true,
                "\(String(describing: error))")
        #expect(error?.hint == hint, "\(String(describing: error))")
    }

    @Test("a chip path may be long; printable names in any script are read")
    func longPathAndUnicodeNames() throws {
        let path = "/dev/" + String(repeating: "d/", count: 100) + "gpiochip0"
        let board = try BoardFile.parse(minimalBoard
            .replacingOccurrences(of: "chip = \"gpiochip0\"", with: "chip = \"\(path)\"")
            .replacingOccurrences(of: "name = \"bench\"", with: "name = \"Drehkreuz Süd — Eingang 2\""), file: "x.toml")
        #expect(board.chip == .path(path))
        #expect(board.name == "Drehkreuz Süd — Eingang 2")
    }
}
