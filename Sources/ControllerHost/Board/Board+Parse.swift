import ControllerFSM
import TOMLKit

/// The board-file bounds every application shares.
enum BoardFileLimits {
    /// The largest board file read: a full board with comments is about 3 KiB.
    static let maxFileSize = 64 * 1024
    /// How deeply tables and arrays may nest; the format's deepest key is an input's line
    /// (`inputs.coin.line`).
    /// The TOML library recurses once per level, so an absurd depth would overflow its stack.
    static let maxNesting = 8

}

extension Board {
    static var maxFileSize: Int { BoardFileLimits.maxFileSize }
    static var maxNesting: Int { BoardFileLimits.maxNesting }

    /// The consumer name lines are requested under when `[board]` does not set one: the
    /// application's daemon (`turnstiled`).
    static var defaultConsumer: String { "\(App.name)d" }

    /// Reads and validates the board file at `path`.
    package static func load(path: String) throws(BoardFileError) -> Board {
        let text: String
        do { text = try TextFile.contents(path: path, limit: maxFileSize) } catch {
            throw BoardFileError(file: path, location: .file, reason: error.reason)
        }
        return try parse(text, file: path)
    }

    /// Parses and validates board-file text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(BoardFileError) -> Board {
        try checkShape(text, file: file)
        let root = BoardTable(table: try document(text, file: file), path: "", file: file)
        let section = App.settings.section
        try root.rejectUnknownKeys(["board", "inputs", "outputs", section, "sim"], kind: "section")

        guard let board = try root.subtable("board", example: "[board]") else {
            throw root.error(at: "board", "missing section", hint: "add [board] with name, backend and chip")
        }
        try board.rejectUnknownKeys(["name", "backend", "chip", "consumer"], kind: "key")
        let name = try required(board.name("name", example: "\"sim\"", kind: .label), "name", in: board, example: "\"sim\"")
        let backend = try required(board.choice("backend", of: Backend.self), "backend", in: board, example: "\"libgpiod\"")
        let chip = try required(board.name("chip", example: "\"pinctrl-bcm2835\"", kind: nil), "chip", in: board,
                                example: "\"pinctrl-bcm2835\" (a label, a name like \"gpiochip0\" or a path)")
        let consumer = try board.name("consumer", example: "\"\(defaultConsumer)\"", kind: .kernel) ?? defaultConsumer

        let inputs = try roles(App.inputs.map { ($0.role, $0.isRequired) }, section: "inputs", in: root, example: "\"GPIO17\"",
                               read: inputLine)
        let outputs = try roles(App.outputs.map { ($0.role, $0.isRequired) }, section: "outputs", in: root, example: "22",
                                read: outputLine)
        try rejectSharedLines(inputs: inputs, outputs: outputs, file: file)

        let settings = try applicationSettings(root.subtable(section, example: "[\(section)]"))
        let sim = try simSettings(root.subtable("sim", example: "[sim]"), file: file)

        let loaded = Board(name: name, backend: backend, chip: GPIOChipSelector(parsing: chip), consumer: consumer, inputs: inputs,
                           outputs: outputs, settings: settings, sim: sim)
        for relation in App.settings.relations { try relation.check(loaded, file: file) }
        return loaded
    }

    private static func document(_ text: String, file: String) throws(BoardFileError) -> TOMLTable {
        do {
            return try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            // toml++ says "Error while parsing …"; lower-cased, it reads on after the location.
            let description = quotingOwnKey(error.description, text: text, line: error.source.begin.line)
            let reason = description.prefix(1).lowercased() + description.dropFirst()
            let hint = if error.description.contains("could not determine value type") {
                "text values need double quotes, e.g. bias = \"pull-up\""
            } else if error.description.contains("redefine") {
                "each section and key may appear only once"
            } else {
                "see the format described at the top of boards/sim.toml"
            }
            let position = BoardFileError.Location.position(line: error.source.begin.line, column: error.source.begin.column)
            throw BoardFileError(file: file, location: position, reason: reason, hint: hint)
        } catch {
            throw BoardFileError(file: file, location: .file, reason: "cannot parse: \(error)")
        }
    }

    /// toml++ quotes a key between single quotes, but misprints one with a quoted part
    /// (`inputs."cöin"` comes out as `inputs."cöcöin"`): such a key is quoted as the file writes
    /// it on the error's line instead. Either way the quote is bounded.
    private static func quotingOwnKey(_ description: String, text: String, line: Int) -> String {
        guard let open = description.firstIndex(of: "'"), let close = description.lastIndex(of: "'"), open < close else {
            return description
        }
        var quoted = String(description[description.index(after: open)..<close])
        if quoted.contains("\""), let written = keyAsWritten(onLine: line, of: text) { quoted = written }
        return description[...open] + quoted.bounded + description[close...]
    }

    /// The `[table]` name or the key before `=` on `line` (1-based), quotes and all.
    private static func keyAsWritten(onLine line: Int, of text: String) -> String? {
        guard line >= 1, let source = text.split(separator: "\n", maxSplits: line, omittingEmptySubsequences: false).dropFirst(line - 1).first
        else { return nil }
        var rest = source.drop(while: { $0 == " " || $0 == "\t" })
        let header = rest.first == "["
        rest = rest.drop(while: { $0 == "[" })
        var key = ""
        var quote: Character?
        var escaped = false
        for character in rest {
            if let open = quote {
                if escaped { escaped = false } else if open == "\"" && character == "\\" { escaped = true } else if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == (header ? "]" : "=") {
                return String(key.reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
            }
            key.append(character)
        }
        return nil
    }

    private static func required<T>(_ value: T?, _ key: String, in table: BoardTable, example: String) throws(BoardFileError) -> T {
        guard let value else { throw table.error(at: key, "missing", hint: "add \(key) = \(example)") }
        return value
    }

    /// Reads `[inputs.*]` or `[outputs.*]`: every present role through `read`, and refuses unknown
    /// and missing required roles.
    private static func roles<Line>(
        _ declared: [(name: RoleName, isRequired: Bool)], section: String, in root: BoardTable, example: String,
        read: (BoardTable) throws(BoardFileError) -> Line
    ) throws(BoardFileError) -> RoleLines<Line> {
        let names = declared.map(\.name)
        let kind = section == "inputs" ? "input role" : "output role"
        let table = try root.subtable(section, example: "[\(section).\(names[0])]")
        try table?.rejectUnknownKeys(names.map(\.rawValue), kind: kind)
        var lines = RoleLines<Line>(roles: names)
        for (index, role) in names.enumerated() {
            if let roleTable = try table?.subtable(role.rawValue, example: "[\(section).\(role)]") {
                lines[index] = try read(roleTable)
            }
        }
        let required = declared.filter(\.isRequired).map(\.name)
        for role in required where lines[role] == nil {
            let path = "\(section).\(role)"
            let wired = required.map(\.rawValue).joined(separator: " and ")
            throw BoardFileError(file: root.file, location: .keyPath(path), reason: "missing section",
                                 hint: "every board wires \(wired): add [\(path)] with line = \(example)")
        }
        return lines
    }

    private static func inputLine(_ table: BoardTable) throws(BoardFileError) -> InputLine {
        try table.rejectUnknownKeys(["line", "active_low", "bias", "debounce"], kind: "key")
        return InputLine(
            line: try lineSelector(table, example: "\"GPIO17\""),
            activeLow: try table.bool("active_low") ?? false,
            bias: try table.choice("bias", of: LineBias.self) ?? .asIs,
            debounce: try table.duration("debounce", zero: .allowed, limit: TimeLimits.debounce, example: "10ms") ?? .milliseconds(10))
    }

    private static func outputLine(_ table: BoardTable) throws(BoardFileError) -> OutputLine {
        try table.rejectUnknownKeys(["line", "active_low"], kind: "key")
        return OutputLine(line: try lineSelector(table, example: "22"), activeLow: try table.bool("active_low") ?? false)
    }

    private static func lineSelector(_ table: BoardTable, example: String) throws(BoardFileError) -> LineSelector {
        let hint = "write a line name in quotes (line = \"GPIO17\") or an offset (line = 17)"
        guard let value = table.table["line"] else {
            throw table.error(at: "line", "missing", hint: "add line = \(example): \(hint)")
        }
        if let name = value.string {
            guard !name.isEmpty else { throw table.error(at: "line", "must not be empty", hint: hint) }
            try table.checkName(name, at: "line", kind: .kernel)
            return .name(name)
        }
        if let offset = value.int {
            guard offset >= 0, offset <= GPIOLineOffset.largest.rawValue, let offset = UInt32(exactly: offset) else {
                throw table.error(at: "line", "offset \(offset) is out of range",
                                  hint: "a GPIO chip's offsets go from 0 to \(GPIOLineOffset.largest)")
            }
            return .offset(offset)
        }
        throw table.error(at: "line", "expected a line name or offset, got \(BoardTable.describe(value))", hint: hint)
    }

    /// The chip cannot hand one line to two roles, and a board that tried would be miswired.
    private static func rejectSharedLines(inputs: RoleLines<InputLine>, outputs: RoleLines<OutputLine>,
                                          file: String) throws(BoardFileError) {
        let uses = inputs.wired.map { ("inputs.\($0.role)", $0.line.line) } + outputs.wired.map { ("outputs.\($0.role)", $0.line.line) }
        var owner: [LineSelector: String] = [:]
        for (path, line) in uses {
            if let first = owner[line] {
                throw BoardFileError(file: file, location: .keyPath("\(path).line"),
                                     reason: "line \(line) is already used by \(first)",
                                     hint: "each role needs a line of its own")
            }
            owner[line] = path
        }
    }

    /// The application's section: every declared key, its default where the file leaves it out.
    private static func applicationSettings(_ table: BoardTable?) throws(BoardFileError) -> App.Settings {
        try section(table, keys: App.settings.keys, defaults: App.settings.defaults)
    }

    /// A section's typed keys over `defaults`; any key not in `keys` is refused.
    private static func section<Values>(_ table: BoardTable?, keys: [SectionKey<Values>], defaults: Values,
                                        alsoAllowed: [String] = []) throws(BoardFileError) -> Values {
        try table?.rejectUnknownKeys(alsoAllowed + keys.map(\.name), kind: "key")
        var values = defaults
        guard let table else { return values }
        for key in keys {
            switch key.kind {
            case .duration(let path):
                let example = values[keyPath: path.keyPath].exampleText
                if let value = try table.duration(key.name, zero: .refused, limit: TimeLimits.boardTiming, example: example) {
                    values[keyPath: path.keyPath] = value
                }
            case .choice(_, let write):
                if let word = try table.choice(key.name, among: key.choices) { write(&values, word) }
            }
        }
        return values
    }

    private static func simSettings(_ table: BoardTable?, file: String) throws(BoardFileError) -> SimSettings {
        let pulseKeys = App.inputs.map { $0.simulatedPulse == nil ? nil : "\($0.role)_pulse" }
        // The plant's keys are read (and every unknown key refused) first, so a misspelt
        // plant key is named with the plant's keys among those known.
        let plant = try section(table, keys: App.Plant.settingKeys, defaults: App.Plant.defaultSettings,
                                alsoAllowed: pulseKeys.compactMap { $0 } + ["bounce_edges", "bounce_window"])
        var pulses: [Duration?] = []
        for (input, key) in zip(App.inputs, pulseKeys) {
            guard let key, let width = input.simulatedPulse else {
                pulses.append(nil)
                continue
            }
            pulses.append(try table?.duration(key, zero: .refused, limit: TimeLimits.boardTiming, example: width.exampleText) ?? width)
        }
        let settings = SimSettings(
            pulses: pulses,
            bounceEdges: try table?.integer("bounce_edges", in: 0...100) ?? 4,
            bounceWindow: try table?.duration("bounce_window", zero: .allowed, limit: TimeLimits.debounce, example: "3ms") ?? .milliseconds(3),
            plant: plant)
        guard settings.bounceEdges > 0 else { return settings }

        // Bounce belongs to the edges of a pulse: a window as long as the pulse would smear the
        // two edges into one another, which no switch does.
        let path = "sim.bounce_window"
        if settings.bounceWindow == .zero {
            throw BoardFileError(file: file, location: .keyPath(path),
                                 reason: "must be longer than zero when bounce_edges is more than 0",
                                 hint: "set bounce_edges = 0 for clean edges")
        }
        for (key, pulse) in zip(pulseKeys, settings.pulses) {
            guard let key, let pulse, settings.bounceWindow >= pulse else { continue }
            throw BoardFileError(file: file, location: .keyPath(path),
                                 reason: "must be shorter than sim.\(key)",
                                 hint: "contact bounce lasts a few milliseconds at each edge of a pulse")
        }
        return settings
    }
}

extension Board {
    /// The deepest key the format has, an input's line: the first input role's
    /// (`inputs.coin.line`).
    static var deepestKey: String { "inputs.\(App.inputs.first?.role.rawValue ?? "ROLE").line" }

    /// Refuses, before the TOML library sees it, text the library cannot be trusted with: too
    /// large, a byte ``TextCharacters`` refuses (the library takes the text as a C string, so a
    /// NUL would end the file there, silently), a `\u0000` escape (the library hands strings and
    /// keys back as C strings, so it would cut a value or key short), nested too deeply (it
    /// recurses once per level), or with something other than a key where a key must stand (its
    /// parser asserts there, aborting the process: "[)", "[#", "[=", "x = {=}", "[" then a
    /// carriage return). A line ending inside an inline table is refused here too, since where
    /// the library meets one a key may stand. Everything else, values above all, is left to the
    /// library, whose errors carry line and column.
    static func checkShape(_ text: String, file: String) throws(BoardFileError) {
        if text.utf8.count > maxFileSize {
            throw BoardFileError(file: file, location: .file, reason: "is larger than \(maxFileSize / 1024) KiB, too large for a board file")
        }
        if let refusal = TextCharacters.check(text) {
            throw BoardFileError(file: file, location: .position(line: refusal.line, column: refusal.column),
                                 reason: refusal.reason, hint: refusal.hint)
        }
        var scanner = KeyScanner(deepestKey: deepestKey)
        var line = 1
        var column = 0
        for scalar in text.unicodeScalars {
            column += 1
            if let problem = scanner.take(scalar) {
                throw BoardFileError(file: file, location: .position(line: line, column: column - problem.columnsBack),
                                     reason: problem.reason, hint: problem.hint)
            }
            if scalar == "\n" {
                line += 1
                column = 0
            }
        }
    }
}

/// Just enough of TOML's grammar to know where keys stand — at the start of a line, in a
/// [table] name, after `{` or `,` in an inline table, after a dot — and that each is a bare key
/// (letters, digits, `-`, `_`) or a quoted one; and how deeply tables and arrays nest.
private struct KeyScanner {
    enum Expecting { case lineStart, keyStart, keyRest, keyEnd, afterHeader, value }

    /// The application's deepest key, as the hint for a file nested too deeply shows it.
    private let deepestKey: String
    private var expecting = Expecting.lineStart
    private var inHeader = false
    /// Just after a header's `[`: a second `[` makes it an array of tables.
    private var headerJustOpened = false
    /// Open `[` and `{` in a value, innermost last.
    private var open: [UInt8] = []
    private var quote: UInt8?
    /// After a backslash in a basic ("…") string: the next byte is escaped, even a quote.
    private var escaped = false
    private var comment = false
    /// Parts of the current dotted key or table name.
    private var keyParts = 0
    /// Inside a `\u` or `\U` escape: the hex digits still to come and the value so far.
    private var unicodeEscape: (remaining: Int, value: UInt32)?
    /// Whether that escape is `\U` (8 digits) rather than `\u` (4).
    private var escapeIsLong = false

    /// Why the text is refused; the place is the character taken last, or `columnsBack` before it.
    struct Problem {
        var reason: String
        var hint: String
        var columnsBack = 0
    }

    init(deepestKey: String) {
        self.deepestKey = deepestKey
    }

    /// Feeds one character; returns why the text is refused, if it is. Only ASCII has a meaning
    /// in TOML's grammar outside strings and comments; the scalar itself is kept for messages.
    mutating func take(_ scalar: Unicode.Scalar) -> Problem? {
        let byte = scalar.isASCII ? UInt8(scalar.value) : Self.nonASCII
        current = scalar
        // CR LF is one line break, taken at its LF (`checkShape` refuses a CR without one).
        if byte == UInt8(ascii: "\r") { return nil }
        if byte == UInt8(ascii: "\n") {
            comment = false
            if quote != nil { return nil }  // a multi-line string goes on
            if open.last == UInt8(ascii: "{") {
                return refuse("an inline table { … } must close on the line it opens", hint: "write its keys on one line, or as a [table] of their own")
            }
            if open.isEmpty {
                // An unclosed "[board" the library reports well; a key missing after "[" or
                // "." it asserts on.
                if expecting == .keyStart {
                    return refuse("a key is missing at the end of the line")
                }
                (expecting, inHeader, keyParts) = (.lineStart, false, 0)
            }
            return nil
        }
        if comment { return nil }
        if let open = quote {
            if let escape = unicodeEscape {
                if let digit = Self.hexValue(byte) { return takeEscapeDigit(digit, escape) }
                unicodeEscape = nil  // not an escape the library takes: it reports it
            }
            if escaped {
                escaped = false
                if byte == UInt8(ascii: "u") || byte == UInt8(ascii: "U") {
                    escapeIsLong = byte == UInt8(ascii: "U")
                    unicodeEscape = (escapeIsLong ? 8 : 4, 0)
                }
            } else if open == UInt8(ascii: "\"") && byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == open {
                quote = nil
            }
            return nil
        }
        // TOML's only blanks: anything else where a key may stand is refused below.
        let blank = byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
        let quoteMark = byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
        switch expecting {
        case .lineStart:
            if blank { return nil }
            if byte == UInt8(ascii: "#") { comment = true; return nil }
            if byte == UInt8(ascii: "[") {
                (inHeader, headerJustOpened, expecting) = (true, true, .keyStart)
                return nil
            }
            return startKey(byte, quoteMark: quoteMark)
        case .keyStart:
            if blank { return nil }
            if inHeader && headerJustOpened && byte == UInt8(ascii: "[") { headerJustOpened = false; return nil }
            headerJustOpened = false
            if !inHeader, open.last == UInt8(ascii: "{"), byte == UInt8(ascii: "}"), keyParts == 0 {
                return closeBracket(byte)
            }
            return startKey(byte, quoteMark: quoteMark)
        case .keyRest, .keyEnd:
            if isBare(byte) && expecting == .keyRest { return nil }
            if blank { expecting = .keyEnd; return nil }
            if byte == UInt8(ascii: ".") { expecting = .keyStart; return nil }
            if inHeader && byte == UInt8(ascii: "]") { expecting = .afterHeader; return nil }
            if !inHeader && byte == UInt8(ascii: "=") { expecting = .value; return nil }
            return refuse("\"\(Character(current))\" cannot follow a key here", hint: inHeader
                ? "a [table] name is keys joined by dots, then ]" : "a key is followed by = and a value")
        case .afterHeader:
            if blank || byte == UInt8(ascii: "]") { return nil }
            if byte == UInt8(ascii: "#") { comment = true; return nil }
            return refuse("nothing but a comment may follow a [table] name on its line")
        case .value:
            if quoteMark { quote = byte; return nil }
            switch byte {
            case UInt8(ascii: "#"): comment = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                open.append(byte)
                if open.count > BoardFileLimits.maxNesting {
                    return refuse("nested more than \(BoardFileLimits.maxNesting) levels deep", hint: "a board file's deepest key is \(deepestKey)")
                }
                if byte == UInt8(ascii: "{") { (expecting, keyParts) = (.keyStart, 0) }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                return closeBracket(byte)
            case UInt8(ascii: ","):
                if open.last == UInt8(ascii: "{") { (expecting, keyParts) = (.keyStart, 0) }
            default:
                break
            }
        }
        return nil
    }

    /// The TOML library hands strings and keys back as C strings: an escaped NUL would end one
    /// there, so that `name = "a\u0000b"` read as "a" without a word.
    private mutating func takeEscapeDigit(_ digit: UInt32, _ escape: (remaining: Int, value: UInt32)) -> Problem? {
        let value = escape.value << 4 | digit
        guard escape.remaining == 1 else {
            unicodeEscape = (escape.remaining - 1, value)
            return nil
        }
        unicodeEscape = nil
        guard value != 0 else {
            // Placed at the backslash: "\u" and its digits are behind the last digit.
            let digits = escapeIsLong ? 8 : 4
            return Problem(reason: "an escaped NUL (\\u0000) cannot stand in a string or key",
                           hint: "the TOML reader would end the text there; remove it", columnsBack: digits + 1)
        }
        return nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// Stands for every non-ASCII character: neither blank, bare, quote nor bracket.
    private static let nonASCII: UInt8 = 0x80
    /// The character taken last, as messages quote it.
    private var current: Unicode.Scalar = " "

    private mutating func startKey(_ byte: UInt8, quoteMark: Bool) -> Problem? {
        guard quoteMark || isBare(byte) else {
            return refuse("\"\(Character(current))\" cannot start a key or a [table] name")
        }
        keyParts += 1
        if keyParts > BoardFileLimits.maxNesting {
            return refuse("nested more than \(BoardFileLimits.maxNesting) levels deep", hint: "a board file's deepest key is \(deepestKey)")
        }
        if quoteMark { quote = byte }
        expecting = .keyRest
        return nil
    }

    private mutating func closeBracket(_ byte: UInt8) -> Problem? {
        let opener = byte == UInt8(ascii: "]") ? UInt8(ascii: "[") : UInt8(ascii: "{")
        guard open.last == opener else {
            return refuse("\"\(Character(current))\" closes nothing that is open here")
        }
        open.removeLast()
        expecting = .value
        return nil
    }

    private func isBare(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    private func refuse(_ reason: String, hint: String = "keys are letters, digits, - and _ (or in quotes); a [table] name is keys joined by dots")
        -> Problem
    {
        Problem(reason: reason, hint: hint)
    }
}
