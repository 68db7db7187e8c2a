import ControllerFSM

/// The board-file bounds every application shares.
enum BoardFileLimits {
    /// The largest board file read: a full board with comments is about 3 KiB.
    static let maxFileSize = 64 * 1024
    /// How deeply arrays and inline tables may nest, and how many parts a key or [table] name
    /// may have; the format's deepest key is an input's line (`inputs.coin.line`). The TOML
    /// reader descends once per array or inline table, so this also bounds its stack.
    static let maxNesting = 8
}

extension Board {
    static var maxFileSize: Int { BoardFileLimits.maxFileSize }
    static var maxNesting: Int { BoardFileLimits.maxNesting }

    /// The consumer name lines are requested under when `[board]` does not set one: the
    /// application's daemon (`turnstiled`).
    static var defaultConsumer: String { App.daemonName }

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
        let root = BoardTable(document: try document(text, file: file), id: TOMLDocument.root, path: "", file: file)
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
        try loaded.validate(settings, file: file)
        return loaded
    }

    private static func document(_ text: String, file: String) throws(BoardFileError) -> TOMLDocument {
        do {
            return try TOMLReader.read(text, maxNesting: maxNesting, nestingHint: "a board file's deepest key is \(deepestKey)")
        } catch {
            throw BoardFileError(file: file, location: .position(line: error.line, column: error.column), reason: error.reason,
                                 hint: error.hint ?? "see the format described at the top of boards/sim.toml")
        }
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
            case .integer(let path):
                if let range = key.range, let value = try table.integer(key.name, in: range) { values[keyPath: path.keyPath] = value }
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

    /// Refuses a file too large to be a board before it is read; everything else, control
    /// characters included, is the TOML reader's to refuse by line and column.
    static func checkShape(_ text: String, file: String) throws(BoardFileError) {
        if text.utf8.count > maxFileSize {
            throw BoardFileError(file: file, location: .file, reason: "is larger than \(maxFileSize / 1024) KiB, too large for a board file")
        }
    }
}
