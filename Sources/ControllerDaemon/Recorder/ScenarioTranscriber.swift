import ControllerFSM
import ControllerHost

/// Turns the inputs a controller took into scenario lines that the daemon's `simulate
/// --script` replays on the same board: a field problem becomes a test case.
///
/// Each input is written in the application's own scenario words where one writes it
/// (`ScenarioWord/writes`: the turnstile's `coin`, `push hold 3`, `emergency on`), in the
/// generic verbs otherwise (`pulse ROLE`, `hold ROLE SECONDS`, `set ROLE on|off`, `event NAME`).
///
/// Edges are written at the moment their line settled (the debounced edge's time less the
/// line's debounce period), so the replay's own pulse, debounced the same way, is taken when
/// the original was, to within the board's simulated bounce window. A pulse input whose line,
/// held too long, sends an event of its own (the turnstile's push: a jam) is written with the
/// width it was held, so a jam replays as a jam; other pulses at their active edge, replayed
/// with the board's simulated width. Lines come out in time order: a pulse that is still held holds back what
/// came after it until it is released.
///
/// No two inputs on one line are written closer than `simulate` accepts
/// (`Board/lineHold(_:width:)`, the rule the daemon's simulated board spaces pulses by):
/// one that settled sooner after the last (its bounce was shorter) is written at the earliest
/// time that works. Times are rounded up to the microsecond, never down, so rounding cannot
/// bring two pulses closer either. Everything else that changes behaviour is written too: the
/// application's duration settings at the start and whenever a reload changes them (`set`
/// lines). The lines the application's simulated plant drives (the barrier's limit switches)
/// are left out: in the replay the plant drives them from the outputs, as in the run.
public struct ScenarioTranscriber<App: ControllerApplication> {
    private let board: Board<App>
    /// The controller's time at the daemon's start: scenario time 0.
    private let origin: MachineInstant
    /// Written lines not yet released, by time (a held pulse in progress holds them back).
    private var pending: [(time: Int64, text: String)] = []
    /// When each held pulse input's line settled active, by index in `App.inputs`, while it is
    /// held.
    private var holdStarts: [Int64?]
    private var lastWritten: Int64 = 0
    /// When each input line may take its next written input, by the times as written.
    private var lineFree: [RoleName: Int64] = [:]
    /// The settings the recording has said are in force.
    private var settings: App.Settings

    public init(board: Board<App>, origin: MachineInstant) {
        self.board = board
        self.origin = origin
        settings = board.settings
        holdStarts = Array(repeating: nil, count: App.inputs.count)
    }

    /// The lines at time 0, after the header: the duration settings the run started with, so
    /// that the replay runs with them whatever the board file says by then.
    public func opening() -> [String] {
        ["0 inputs as taken"] + App.settings.durationKeys.map { "0 set \($0.name) \($0.duration(in: settings).exactSecondsText)" }
    }

    /// The comment lines a recording starts with.
    /// The board's name and path are escaped: a line break in either would end the comment and
    /// start a scenario line of its own, which the replay would play.
    public static func header(board: Board<App>, boardPath: String) -> String {
        let (name, path) = (board.name.visible, boardPath.visible)
        return """
        # Recorded by \(App.daemonName) run --record on board \(name) (\(path)).
        # Replay: \(App.daemonName) simulate --board \(path) --script THIS-FILE
        # Times are seconds since the daemon started, to the nanosecond; each input is written
        # at the moment its line changed as the controller took it (its edge less the line's
        # debounce), and `inputs as taken` replays it without contact bounce: the replay takes
        # every input at the instant the controller did, in the same order as the commands.

        """
    }

    /// Takes one input; returns the lines that are final now (in time order).
    public mutating func take(_ record: InputRecord<App>) -> [String] {
        let time = record.time.nanoseconds &- origin.nanoseconds
        switch record.input {
        case .edge(let role, let active):
            // The plant drives those lines in the replay (and `simulate` refuses a scenario that
            // drives them): the replay's arm reaches its limit switch as the run's did.
            guard let index = App.inputIndex(named: role), !App.Plant.drivenInputs.contains(role) else { break }
            let settled = time &- (board.inputs[role]?.debounce.nanosecondCount ?? 0)
            let input = App.inputs[index]
            switch input.binding {
            case .pulse where input.heldTooLong != nil:
                if active {
                    holdStarts[index] = settled
                } else if let start = holdStarts[index] {
                    addHold(index, from: start, to: settled)
                    holdStarts[index] = nil
                }
            case .pulse:
                if active { add(settled, Self.text(.pulse(role, width: nil)), on: role) }
            case .level, .condition:
                add(settled, Self.text(.level(role, on: active)), on: role)
            }
        case .command(let event):
            // As sent: `event NAME` replays through the controller's command path, so a
            // condition declared by command stays a command (beside the line, never instead
            // of it) and a command needs no line.
            add(time, Self.text(.command(event)))
        case .outputWriteFailed(let role):
            let raised = App.outputIndex(named: role).flatMap { App.outputs[$0].writeFailure }
            add(time, "unreplayable the \(role.rawValue) write failed\(raised.map { " (the controller raised \($0.name))" } ?? "")")
        case .plant(let action):
            // In the plant's own words: the replay's plant takes it at the same time.
            add(time, Self.text(.plant(action)))
        case .retime(let new):
            for key in App.settings.keys {
                if key.isDuration {
                    let value = key.duration(in: new)
                    if value != key.duration(in: settings) { add(time, "set \(key.name) \(value.exactSecondsText)") }
                } else if key.text(in: new) != key.text(in: settings) {
                    add(time, "# reloaded: \(key.name) \(key.text(in: new)) (a scenario sets durations only: the replay keeps the board's)", comment: true)
                }
            }
            settings = new
        }
        return release(upTo: heldSince ?? .max)
    }

    /// The earliest time a pulse still held began, if one is.
    private var heldSince: Int64? { holdStarts.lazy.compactMap { $0 }.min() }

    /// An action as the application's words write it, or the generic verb.
    static func text(_ action: ScenarioAction<App>) -> String {
        if let word = (App.scenarioWords + App.Plant.scenarioWords).lazy.compactMap({ $0.writes(action) }).first { return word }
        switch action {
        case .pulse(let role, nil): return "pulse \(role)"
        case .pulse(let role, let width?): return "hold \(role) \(width.exactSecondsText)"
        case .level(let role, let on): return "set \(role) \(on ? "on" : "off")"
        case .command(let event): return "event \(event.name)"
        default: return "\(action)"
        }
    }

    /// The rest, at the end of the recording at `end`: a pulse still held is written as held
    /// until then, and an `end` line closes the scenario.
    public mutating func finish(at end: MachineInstant) -> [String] {
        let time = end.nanoseconds &- origin.nanoseconds
        for index in holdStarts.indices {
            guard let start = holdStarts[index] else { continue }
            addHold(index, from: start, to: time)
            holdStarts[index] = nil
        }
        var lines = release(upTo: .max)
        lines.append("\(Self.seconds(Self.roundedUp(Swift.max(time, lastWritten)))) end")
        return lines
    }

    /// Input `index`'s line held from `start` to `end` (when the line settled each way):
    /// released at its own time even when the line's rule moved its start later.
    private mutating func addHold(_ index: Int, from start: Int64, to end: Int64) {
        let role = App.inputs[index].role
        let at = earliest(start, on: role)
        let hold = Self.roundedUp(Swift.max(1_000, end &- at))
        add(at, Self.text(.pulse(role, width: .nanoseconds(hold))), on: role, width: .nanoseconds(hold))
    }

    /// The earliest time, rounded up to the microsecond, at or after `time` that a scenario
    /// may give an input on `role`'s line.
    private func earliest(_ time: Int64, on role: RoleName) -> Int64 {
        Swift.max(time, lastWrittenFloor, lineFree[role] ?? 0)
    }

    /// `text` at `time`, or — for an input on `role`'s line — at the earliest time the line's
    /// rule allows; that line is then busy for the input's pulse (`width`, by default the
    /// board's simulated pulse for `role`) or level.
    private mutating func add(
        _ time: Int64, _ text: String, on role: RoleName? = nil, width: Duration? = nil, comment: Bool = false
    ) {
        // Never before 0 (an edge in the first debounce period) nor before a line already
        // released: a scenario's times do not go back.
        var at = Swift.max(time, lastWrittenFloor)
        if let role {
            at = earliest(time, on: role)
            let hold = board.lineHold(role, width: width ?? board.simulatedPulseWidth(role))
            lineFree[role] = at &+ hold.nanosecondCount
        }
        let line = comment ? text : "\(Self.seconds(at)) \(text)"
        let index = pending.firstIndex { $0.time > at } ?? pending.count
        pending.insert((at, line), at: index)
    }

    private var lastWrittenFloor: Int64 { Swift.max(0, lastWritten) }

    private mutating func release(upTo limit: Int64) -> [String] {
        var lines: [String] = []
        while let first = pending.first, first.time < limit {
            lines.append(first.text)
            lastWritten = Swift.max(lastWritten, first.time)
            pending.removeFirst()
        }
        return lines
    }

    /// To the nanosecond: rounding could make a command and the input just after it one
    /// instant, and a replay takes the input first at one instant.
    static func seconds(_ nanoseconds: Int64) -> String {
        Duration.nanoseconds(nanoseconds).exactSecondsText
    }

    /// Up to the next whole microsecond (the precision `seconds` writes): a time rounded down
    /// could be earlier than the line's rule allows.
    static func roundedUp(_ nanoseconds: Int64) -> Int64 {
        let remainder = nanoseconds % 1_000
        return remainder > 0 ? nanoseconds &+ (1_000 - remainder) : nanoseconds
    }
}
