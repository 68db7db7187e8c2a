import ControllerFSM
import TOMLKit

extension BoardFile {
    /// The consumer name lines are requested under when `[board]` does not set one.
    static let defaultConsumer = "turnstiled"
    /// The largest board file read: a full board with comments is about 3 KiB.
    public static let maxFileSize = 64 * 1024
    /// How deeply tables and arrays may nest; the format's deepest key is `inputs.coin.line`.
    /// The TOML library recurses once per level, so an absurd depth would overflow its stack.
    public static let maxNesting = 8

    /// Reads and validates the board file at `path`.
    public static func load(path: String) throws(BoardFileError) -> BoardFile {
        let text: String
        do { text = try TextFile.contents(path: path, limit: maxFileSize) } catch {
            throw BoardFileError(file: path, location: .file, reason: error.reason)
        }
        return try parse(text, file: path)
    }

    /// Parses and validates board-file text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(BoardFileError) -> BoardFile {
        try checkShape(text, file: file)
        let root = BoardTable(table: try document(text, file: file), path: "", file: file)
        try root.rejectUnknownKeys(["board", "inputs", "outputs", "turnstile", "sim"], kind: "section")

        guard let board = try root.subtable("board", example: "[board]") else {
            throw root.error(at: "board", "missing section", hint: "add [board] with name, backend and chip")
        }
        try board.rejectUnknownKeys(["name", "backend", "chip", "consumer"], kind: "key")
        let name = try required(board.string("name", example: "\"sim\""), "name", in: board, example: "\"sim\"")
        let backend = try required(board.choice("backend", of: Backend.self), "backend", in: board, example: "\"libgpiod\"")
        let chip = try required(board.string("chip", example: "\"pinctrl-bcm2835\""), "chip", in: board,
                                example: "\"pinctrl-bcm2835\" (a label, a name like \"gpiochip0\" or a path)")
        let consumer = try board.string("consumer", example: "\"turnstiled\"") ?? defaultConsumer

        let inputs = try roles(InputRole.self, section: "inputs", in: root, example: "\"GPIO17\"", read: inputLine)
        let outputs = try roles(OutputRole.self, section: "outputs", in: root, example: "22", read: outputLine)
        try rejectSharedLines(inputs: inputs, outputs: outputs, file: file)

        let turnstile = try turnstileSettings(root.subtable("turnstile", example: "[turnstile]"))
        let sim = try simSettings(root.subtable("sim", example: "[sim]"), file: file)

        return BoardFile(name: name, backend: backend, chip: GPIOChipSelector(parsing: chip), consumer: consumer, inputs: inputs,
                         outputs: outputs, turnstile: turnstile, sim: sim)
    }

    private static func document(_ text: String, file: String) throws(BoardFileError) -> TOMLTable {
        do {
            return try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            // toml++ says "Error while parsing …"; lower-cased, it reads on after the location.
            let reason = error.description.prefix(1).lowercased() + error.description.dropFirst()
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

    private static func required<T>(_ value: T?, _ key: String, in table: BoardTable, example: String) throws(BoardFileError) -> T {
        guard let value else { throw table.error(at: key, "missing", hint: "add \(key) = \(example)") }
        return value
    }

    /// Reads `[inputs.*]` or `[outputs.*]`: every present role through `read`, and refuses unknown
    /// and missing required roles.
    private static func roles<Role: BoardRole, Line>(
        _: Role.Type, section: String, in root: BoardTable, example: String,
        read: (BoardTable) throws(BoardFileError) -> Line
    ) throws(BoardFileError) -> [Role: Line] {
        let names = Role.allCases.map(\.rawValue)
        let kind = section == "inputs" ? "input role" : "output role"
        let table = try root.subtable(section, example: "[\(section).\(names[0])]")
        try table?.rejectUnknownKeys(names, kind: kind)
        var lines: [Role: Line] = [:]
        for role in Role.allCases {
            if let roleTable = try table?.subtable(role.rawValue, example: "[\(section).\(role.rawValue)]") {
                lines[role] = try read(roleTable)
            }
        }
        let required = Role.allCases.filter(\.isRequired)
        for role in required where lines[role] == nil {
            let path = "\(section).\(role.rawValue)"
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
            bias: try table.choice("bias", of: Bias.self) ?? .asIs,
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
    private static func rejectSharedLines(inputs: [InputRole: InputLine], outputs: [OutputRole: OutputLine],
                                          file: String) throws(BoardFileError) {
        let uses = InputRole.allCases.compactMap { role in inputs[role].map { ("inputs.\(role.rawValue)", $0.line) } }
            + OutputRole.allCases.compactMap { role in outputs[role].map { ("outputs.\(role.rawValue)", $0.line) } }
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

    private static func turnstileSettings(_ table: BoardTable?) throws(BoardFileError) -> TurnstileSettings {
        try table?.rejectUnknownKeys(["relock_timeout", "repair_period", "jam_timeout", "alarm_pulse", "fail_mode"], kind: "key")
        return TurnstileSettings(
            relockTimeout: try table?.duration("relock_timeout", zero: .refused, limit: TimeLimits.boardTiming, example: "5s") ?? .seconds(5),
            repairPeriod: try table?.duration("repair_period", zero: .refused, limit: TimeLimits.boardTiming, example: "5s") ?? .seconds(5),
            jamTimeout: try table?.duration("jam_timeout", zero: .refused, limit: TimeLimits.boardTiming, example: "30s") ?? .seconds(30),
            alarmPulse: try table?.duration("alarm_pulse", zero: .refused, limit: TimeLimits.boardTiming, example: "500ms") ?? .milliseconds(500),
            failMode: try table?.choice("fail_mode", of: FailMode.self) ?? .secure)
    }

    private static func simSettings(_ table: BoardTable?, file: String) throws(BoardFileError) -> SimSettings {
        try table?.rejectUnknownKeys(["coin_pulse", "push_pulse", "service_pulse", "bounce_edges", "bounce_window"], kind: "key")
        let settings = SimSettings(
            coinPulse: try table?.duration("coin_pulse", zero: .refused, limit: TimeLimits.boardTiming, example: "50ms") ?? .milliseconds(50),
            pushPulse: try table?.duration("push_pulse", zero: .refused, limit: TimeLimits.boardTiming, example: "150ms") ?? .milliseconds(150),
            servicePulse: try table?.duration("service_pulse", zero: .refused, limit: TimeLimits.boardTiming, example: "100ms") ?? .milliseconds(100),
            bounceEdges: try table?.integer("bounce_edges", in: 0...100) ?? 4,
            bounceWindow: try table?.duration("bounce_window", zero: .allowed, limit: TimeLimits.debounce, example: "3ms") ?? .milliseconds(3))
        guard settings.bounceEdges > 0 else { return settings }

        // Bounce belongs to the edges of a pulse: a window as long as the pulse would smear the
        // two edges into one another, which no switch does.
        let path = "sim.bounce_window"
        if settings.bounceWindow == .zero {
            throw BoardFileError(file: file, location: .keyPath(path),
                                 reason: "must be longer than zero when bounce_edges is more than 0",
                                 hint: "set bounce_edges = 0 for clean edges")
        }
        for (key, pulse) in [("coin_pulse", settings.coinPulse), ("push_pulse", settings.pushPulse),
                             ("service_pulse", settings.servicePulse)] where settings.bounceWindow >= pulse {
            throw BoardFileError(file: file, location: .keyPath(path),
                                 reason: "must be shorter than sim.\(key)",
                                 hint: "contact bounce lasts a few milliseconds at each edge of a pulse")
        }
        return settings
    }
}

extension BoardFile {
    /// Refuses, before the TOML library sees it, text too large or nested too deeply for a
    /// board file: table headers with too many dotted parts, arrays or inline tables opened too
    /// deeply. Quoted strings and comments are skipped, so their brackets and dots do not count.
    static func checkShape(_ text: String, file: String) throws(BoardFileError) {
        if text.utf8.count > maxFileSize {
            throw BoardFileError(file: file, location: .file, reason: "is larger than \(maxFileSize / 1024) KiB, too large for a board file")
        }
        var line = 1
        var depth = 0
        var keyDots = 0
        var inHeader = false
        var beforeValue = true
        var quote: UInt8? = nil
        var comment = false
        var atLineStart = true
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\n") {
                line += 1
                (comment, atLineStart, inHeader, beforeValue, keyDots) = (false, true, false, true, 0)
                continue
            }
            if comment { continue }
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
            case UInt8(ascii: "#"): comment = true
            case UInt8(ascii: "=") where !inHeader: beforeValue = false
            case UInt8(ascii: "[") where atLineStart: inHeader = true
            case UInt8(ascii: "[") where !inHeader, UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "]") where !inHeader, UInt8(ascii: "}"): depth = max(0, depth - 1)
            case UInt8(ascii: "]"): inHeader = false; beforeValue = false
            // Dotted keys and header parts nest tables as deeply as brackets do.
            case UInt8(ascii: ".") where inHeader || (beforeValue && depth == 0): keyDots += 1
            default: break
            }
            if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") { atLineStart = false }
            if depth > maxNesting || keyDots + 1 > maxNesting {
                throw BoardFileError(
                    file: file, location: .position(line: line, column: 1),
                    reason: "nested more than \(maxNesting) levels deep",
                    hint: "a board file's deepest key is inputs.coin.line")
            }
        }
    }
}
