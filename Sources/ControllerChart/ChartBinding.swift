import ControllerHost

/// A chart's binding file, as read: which chart, and how a board's lines, an operator's
/// commands and the status page meet it. Names and expressions are still text here; the loader
/// checks each against the chart (``ChartLoader``). Every key keeps its key path, so a refusal
/// names the place in the file.
///
/// ```toml
/// [chart]
/// file = "door.scxml"              # beside this file
///
/// [inputs.button]
/// pulse = "open"                   # each press sends the chart's event `open`
/// required = true
///
/// [inputs.obstacle]
/// level = ["blocked", "clear"]     # the events of its active and inactive edges
/// data = "obstacle"                # the <data> that holds the level, 1 or 0
///
/// [inputs.fire]
/// condition = ["fire", "fireOver"] # held by the line or a command, whichever holds it
///
/// [outputs.motor]
/// when = "In('opening')"           # the level, over the configuration and the data
/// required = true
///
/// [counters]
/// openings = "doors opened"        # a <data> of the chart, by id
///
/// [commands]
/// open = "open the door, as the button does"
///
/// [invariants]
/// "the motor never runs against an obstacle" = "!(In('opening') && obstacle == 1)"
///
/// [settings]
/// retries = { min = 1, max = 5 }   # a <data> the board's [door] section may set, within these
/// ```
public struct ChartBinding: Sendable {
    public struct Input: Sendable {
        public enum Kind: Sendable, Equatable {
            case pulse(event: String)
            case level(on: String, off: String)
            case condition(on: String, off: String)
        }

        public var role: String
        public var kind: Kind
        public var required: Bool
        public var summary: String
        /// A level's `<data>`: set to 1 or 0 with the level, before its event.
        public var data: String?
        public var simulatedPulse: Duration
        /// Where it is in the file (`inputs.button`).
        public var keyPath: String
    }

    public struct Output: Sendable {
        public var role: String
        public var when: String
        public var required: Bool
        public var initial: Bool
        public var summary: String
        /// An output precondition: the host never turns the output on unless it holds.
        public var requires: String?
        public var keyPath: String
    }

    /// A `<data>` of the chart the board's section may set, within its floor and ceiling.
    public struct Setting: Sendable {
        public var id: String
        public var range: ClosedRange<Int>
        public var summary: String
        public var keyPath: String
    }

    public struct Named: Sendable {
        public var name: String
        public var text: String
        public var keyPath: String
    }

    /// How Home Assistant sees the controller, beyond its inputs and outputs.
    public struct HomeAssistant: Sendable {
        public var faultStates: [String] = []
        public var cover: Cover?
        public var inputDeviceClasses: [(role: String, deviceClass: String)] = []
        public var keyPath = "home_assistant"

        /// The controller as a cover (a door, a gate): the command that opens it and the states
        /// it is open, opening and closing in.
        public struct Cover: Sendable {
            public var deviceClass: String
            public var open: String
            public var close: String?
            public var stop: String?
            public var openStates: [String]
            public var opening: [String]
            public var closing: [String]
        }
    }

    /// A state entered or left that the store counts as a kind of its own.
    public struct StateCountBinding: Sendable {
        public var kind: String
        public var state: String
        public var entering: Bool
        public var keyPath: String
    }

    public var file: String
    public var chart: String
    public var chartKeyPath = "chart.file"
    public var name: String?
    public var summary: String?
    /// The command the controller is known by (`doord`): its `--help`, its messages, its
    /// package, user and unit; `chartd` when the binding gives none.
    public var daemon: String?
    /// A scenario beside the binding that `simulate` plays without `--script`.
    public var demo: String?
    /// A board file beside the binding that `simulate`, `soak` and `check` use without `--board`.
    public var board: String?
    public var stateCounts: [StateCountBinding] = []
    public var homeAssistant = HomeAssistant()
    public var inputs: [Input] = []
    public var outputs: [Output] = []
    /// `<data>` ids counted, with their summaries.
    public var counters: [Named] = []
    /// Events an operator may send, with their summaries.
    public var commands: [Named] = []
    /// Invariants: their names and conditions.
    public var invariants: [Named] = []
    /// `<data>` the board's section sets.
    public var settings: [Setting] = []

    /// The simulator's pulse when the binding gives none.
    public static let defaultSimulatedPulse = Duration.milliseconds(100)
    /// The largest binding file read (a binding is a few dozen lines).
    public static let maximumFileBytes = 256 * 1024
    /// How deep its keys go (`inputs.button.pulse`).
    static let maximumNesting = 4

    /// Reads the binding file at `path`; the chart's path is taken beside it.
    public static func read(path: String) throws(BoardFileError) -> ChartBinding {
        let text: String
        do { text = try TextFile.contents(path: path, limit: maximumFileBytes) } catch {
            throw BoardFileError(file: path, location: .file, reason: error.reason, hint: nil)
        }
        return try parse(text, file: path)
    }

    /// Reads a binding file's text, named `file` in messages.
    public static func parse(_ text: String, file: String) throws(BoardFileError) -> ChartBinding {
        let document: TOMLDocument
        do {
            document = try TOMLReader.read(text, maxNesting: maximumNesting, nestingHint: "a binding's deepest key is inputs.ROLE.pulse")
        } catch {
            throw BoardFileError(file: file, location: .position(line: error.line, column: error.column), reason: error.reason, hint: error.hint)
        }
        let root = BoardTable(document: document, id: TOMLDocument.root, path: "", file: file)
        try root.rejectUnknownKeys(["chart", "inputs", "outputs", "counters", "commands", "invariants", "settings", "state_counts", "home_assistant"], kind: "section")
        guard let chartTable = try root.subtable("chart", example: "[chart] file = \"door.scxml\"") else {
            throw root.error(at: "chart", "missing", hint: "name the chart: [chart] file = \"door.scxml\"")
        }
        try chartTable.rejectUnknownKeys(["file", "name", "summary", "demo", "board", "daemon"], kind: "key")
        guard let chart = try chartTable.string("file", example: "\"door.scxml\"") else {
            throw chartTable.error(at: "file", "missing", hint: "the chart's path, beside this file: file = \"door.scxml\"")
        }
        var binding = ChartBinding(file: file, chart: chart)
        binding.name = try chartTable.string("name", example: "\"door\"")
        binding.summary = try chartTable.string("summary", example: "\"The door controller.\"")
        binding.demo = try chartTable.string("demo", example: "\"demo.scenario\"")
        binding.daemon = try chartTable.string("daemon", example: "\"doord\"")
        if let daemon = binding.daemon, !isDaemonName(daemon) {
            throw chartTable.error(at: "daemon", "\"\(daemon.shown)\" is not a command's name",
                                   hint: "lower-case letters, digits and hyphens, a letter first (a Debian package's and a user's name): daemon = \"doord\"")
        }
        binding.board = try chartTable.string("board", example: "\"boards/sim.toml\"")
        if let inputs = try root.subtable("inputs", example: "[inputs.button]") {
            for role in inputs.table.keys {
                guard let table = try inputs.subtable(role, example: "[inputs.\(role)] pulse = \"EVENT\"") else { continue }
                binding.inputs.append(try input(role, table))
            }
        }
        if let outputs = try root.subtable("outputs", example: "[outputs.motor]") {
            for role in outputs.table.keys {
                guard let table = try outputs.subtable(role, example: "[outputs.\(role)] when = \"In('opening')\"") else { continue }
                try table.rejectUnknownKeys(["when", "required", "initial", "summary", "requires"], kind: "key")
                guard let when = try table.string("when", example: "\"In('opening')\"") else {
                    throw table.error(at: "when", "missing", hint: "the output's level as a condition of the chart: when = \"In('opening')\"")
                }
                binding.outputs.append(Output(
                    role: role, when: when, required: try table.bool("required") ?? false, initial: try table.bool("initial") ?? false,
                    summary: try table.string("summary", example: "\"the motor\"") ?? "", requires: try table.string("requires", example: "\"closed == 1\""),
                    keyPath: table.path))
            }
        }
        binding.counters = try named(root, "counters", example: "openings = \"doors opened\"")
        binding.commands = try named(root, "commands", example: "open = \"open the door\"")
        binding.invariants = try named(root, "invariants", example: "\"never both\" = \"!(In('a') && In('b'))\"")
        if let settings = try root.subtable("settings", example: "[settings] retries = { min = 1, max = 5 }") {
            for id in settings.table.keys {
                guard let table = try settings.subtable(id, example: "\(id) = { min = 1, max = 5 }") else { continue }
                try table.rejectUnknownKeys(["min", "max", "summary"], kind: "key")
                let hint = "a setting's floor and ceiling: \(id) = { min = 1, max = 5 }"
                guard let low = try table.integer("min", in: Int.min...Int.max) else { throw table.error(at: "min", "missing", hint: hint) }
                guard let high = try table.integer("max", in: Int.min...Int.max) else { throw table.error(at: "max", "missing", hint: hint) }
                guard low <= high else { throw table.error(at: "max", "\(high) is below min (\(low))", hint: hint) }
                binding.settings.append(Setting(id: id, range: low...high, summary: try table.string("summary", example: "\"how many retries\"") ?? "",
                                                keyPath: table.path))
            }
        }
        if let counts = try root.subtable("state_counts", example: "[state_counts] alarms = { entering = \"fault\" }") {
            for kind in counts.table.keys {
                guard let table = try counts.subtable(kind, example: "\(kind) = { entering = \"STATE\" }") else { continue }
                try table.rejectUnknownKeys(["entering", "leaving"], kind: "key")
                let entering = try table.string("entering", example: "\"fault\"")
                let leaving = try table.string("leaving", example: "\"fault\"")
                guard (entering == nil) != (leaving == nil) else {
                    throw table.error(at: "entering", "give one of entering or leaving", hint: "\(kind) = { entering = \"STATE\" } counts each entry of STATE")
                }
                binding.stateCounts.append(StateCountBinding(kind: kind, state: entering ?? leaving!, entering: entering != nil, keyPath: table.path))
            }
        }
        if let assistant = try root.subtable("home_assistant", example: "[home_assistant] fault_states = [\"fault\"]") {
            try assistant.rejectUnknownKeys(["fault_states", "cover", "input_device_classes"], kind: "key")
            binding.homeAssistant.faultStates = try strings(assistant, "fault_states") ?? []
            if let cover = try assistant.subtable("cover", example: "[home_assistant.cover] device_class = \"door\"") {
                try cover.rejectUnknownKeys(["device_class", "open", "close", "stop", "open_states", "opening", "closing"], kind: "key")
                guard let deviceClass = try cover.string("device_class", example: "\"door\"") else {
                    throw cover.error(at: "device_class", "missing", hint: "Home Assistant's cover class: device_class = \"door\" (or gate, garage, …)")
                }
                guard let open = try cover.string("open", example: "\"open\"") else {
                    throw cover.error(at: "open", "missing", hint: "the command that opens it: open = \"open\"")
                }
                guard let openStates = try strings(cover, "open_states") else {
                    throw cover.error(at: "open_states", "missing", hint: "the states it is open in: open_states = [\"open\"]")
                }
                binding.homeAssistant.cover = HomeAssistant.Cover(
                    deviceClass: deviceClass, open: open, close: try cover.string("close", example: "\"close\""),
                    stop: try cover.string("stop", example: "\"stop\""), openStates: openStates,
                    opening: try strings(cover, "opening") ?? [], closing: try strings(cover, "closing") ?? [])
            }
            if let classes = try assistant.subtable("input_device_classes", example: "input_device_classes = { fire = \"safety\" }") {
                for role in classes.table.keys {
                    guard let value = try classes.string(role, example: "\"safety\"") else { continue }
                    binding.homeAssistant.inputDeviceClasses.append((role, value))
                }
            }
        }
        return binding
    }

    /// Whether `name` can name a command, a package, a user and a unit: `^[a-z][a-z0-9-]*$`, at
    /// most 32 characters (a user name's bound).
    static func isDaemonName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.unicodeScalars.count <= 32 else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// An array of non-empty strings (state ids, event names).
    private static func strings(_ table: BoardTable, _ key: String) throws(BoardFileError) -> [String]? {
        guard let value = table.table[key] else { return nil }
        guard let array = value.array else { throw table.error(at: key, "expected an array of names", hint: "\(key) = [\"a\", \"b\"]") }
        var names: [String] = []
        for item in array {
            guard let name = item.string, !name.isEmpty else { throw table.error(at: key, "expected an array of names", hint: "\(key) = [\"a\", \"b\"]") }
            names.append(name)
        }
        return names
    }

    private static func input(_ role: String, _ table: BoardTable) throws(BoardFileError) -> Input {
        try table.rejectUnknownKeys(["pulse", "level", "condition", "required", "summary", "data", "simulated_pulse"], kind: "key")
        let kinds = ["pulse", "level", "condition"].filter { table.table[$0] != nil }
        guard kinds.count == 1 else {
            throw table.error(at: kinds.count > 1 ? kinds[1] : "pulse", kinds.count > 1 ? "an input is one of pulse, level or condition, not several" : "missing",
                              hint: "pulse = \"EVENT\", level = [\"ON_EVENT\", \"OFF_EVENT\"] or condition = [\"ON_EVENT\", \"OFF_EVENT\"]")
        }
        let kind: Input.Kind
        switch kinds[0] {
        case "pulse":
            kind = .pulse(event: try table.string("pulse", example: "\"open\"")!)
        default:
            let (on, off) = try pair(table, kinds[0])
            kind = kinds[0] == "level" ? .level(on: on, off: off) : .condition(on: on, off: off)
        }
        let data = try table.string("data", example: "\"obstacle\"")
        if data != nil, case .pulse = kind {
            throw table.error(at: "data", "a pulse has no level to keep", hint: "data = … belongs to a level input")
        }
        let pulse = try table.duration("simulated_pulse", zero: .refused, limit: .seconds(60), example: "100ms")
        return Input(
            role: role, kind: kind, required: try table.bool("required") ?? false, summary: try table.string("summary", example: "\"the button\"") ?? "",
            data: data, simulatedPulse: pulse ?? defaultSimulatedPulse, keyPath: table.path)
    }

    /// `["ON", "OFF"]`: the events of a level's or a condition's two edges.
    private static func pair(_ table: BoardTable, _ key: String) throws(BoardFileError) -> (String, String) {
        let hint = "\(key) = [\"ON_EVENT\", \"OFF_EVENT\"]: the events its active and inactive edges send"
        guard let array = table.table[key]?.array, array.count == 2, let on = array[0].string, let off = array[1].string, !on.isEmpty, !off.isEmpty else {
            throw table.error(at: key, "expected two event names", hint: hint)
        }
        return (on, off)
    }

    /// A section of `NAME = "TEXT"` lines, in the file's order.
    private static func named(_ root: BoardTable, _ section: String, example: String) throws(BoardFileError) -> [Named] {
        guard let table = try root.subtable(section, example: "[\(section)] \(example)") else { return [] }
        var result: [Named] = []
        for key in table.table.keys {
            guard let text = try table.string(key, example: example) else { continue }
            result.append(Named(name: key, text: text, keyPath: table.keyPath(key)))
        }
        return result
    }
}
