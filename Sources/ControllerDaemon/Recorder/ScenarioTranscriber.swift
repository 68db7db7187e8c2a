import ControllerFSM
import ControllerHost
import Turnstile

/// Turns the inputs a controller took into scenario lines that `turnstiled simulate --script`
/// replays on the same board: a field problem becomes a test case.
///
/// Edges are written at the moment their line settled (the debounced edge's time less the
/// line's debounce period), so the replay's own pulse, debounced the same way, is taken when
/// the original was, to within the board's simulated bounce window. A push is written with the
/// width it was held (`push hold`), so a jam replays as a jam. Lines come out in time order: a
/// push that is still held holds back what came after it until it is released.
///
/// No two inputs on one line are written closer than `simulate` accepts
/// (``BoardFile/lineHold(_:width:)``, the rule the daemon's simulated board spaces pulses by):
/// one that settled sooner after the last (its bounce was shorter) is written at the earliest
/// time that works. Times are rounded up to the microsecond, never down, so rounding cannot
/// bring two pulses closer either. Everything else that changes behaviour is written too: the
/// `[turnstile]` timings at the start and whenever a reload changes them (`set` lines).
public struct ScenarioTranscriber {
    private let board: BoardFile
    /// The controller's time at the daemon's start: scenario time 0.
    private let origin: MachineInstant
    /// Written lines not yet released, by time (a push in progress holds them back).
    private var pending: [(time: Int64, text: String)] = []
    private var pushStart: Int64?
    private var lastWritten: Int64 = 0
    /// When each input line may take its next written input, by the times as written.
    private var lineFree: [InputRole: Int64] = [:]
    /// The `[turnstile]` section the recording has said is in force.
    private var settings: BoardFile.TurnstileSettings

    public init(board: BoardFile, origin: MachineInstant) {
        self.board = board
        self.origin = origin
        settings = board.turnstile
    }

    /// The lines at time 0, after the header: the timings the run started with, so that the
    /// replay runs with them whatever the board file says by then.
    public func opening() -> [String] {
        BoardFile.TurnstileSettings.Timing.allCases.map { "0 set \($0.rawValue) \(settings[$0].exactSecondsText)" }
    }

    /// The comment lines a recording starts with.
    /// The board's name and path are escaped: a line break in either would end the comment and
    /// start a scenario line of its own, which the replay would play.
    public static func header(board: BoardFile, boardPath: String) -> String {
        let (name, path) = (board.name.visible, boardPath.visible)
        return """
        # Recorded by turnstiled run --record on board \(name) (\(path)).
        # Replay: turnstiled simulate --board \(path) --script THIS-FILE
        # Times are seconds since the daemon started; each input is written when its line
        # settled, so the replay takes it when the controller did (to within the bounce window).

        """
    }

    /// Takes one input; returns the lines that are final now (in time order).
    public mutating func take(_ record: InputRecord<TurnstileApplication>) -> [String] {
        let time = record.time.nanoseconds &- origin.nanoseconds
        switch record.input {
        case .edge(let role, let active):
            let settled = time &- (board.inputs[role]?.debounce.nanosecondCount ?? 0)
            switch (role, active) {
            case (.coin, true): add(settled, "coin", on: .coin)
            case (.service, true): add(settled, "repair", on: .service)
            case (.emergency, let on): add(settled, "emergency \(on ? "on" : "off")", on: .emergency)
            case (.push, true): pushStart = settled
            case (.push, false):
                if let start = pushStart { addPush(from: start, to: settled) }
                pushStart = nil
            default: break
            }
        case .command(let event):
            // As sent: `event NAME` replays through the controller's command path, so an
            // emergency declared by command stays a command (beside the line, never instead
            // of it) and a repair needs no service line.
            add(time, event == .fault ? "fault" : "event \(event.name)")
        case .outputWriteFailed(let role):
            add(time, "unreplayable the \(role.rawValue) write failed\(role == .lock ? " (the controller raised fault)" : "")")
        case .retime(let new):
            for timing in BoardFile.TurnstileSettings.Timing.allCases where new[timing] != settings[timing] {
                add(time, "set \(timing.rawValue) \(new[timing].exactSecondsText)")
            }
            if new.failMode != settings.failMode {
                add(time, "# reloaded: fail_mode \(new.failMode.rawValue) (it acts when the daemon stops, which a replay does not)", comment: true)
            }
            settings = new
        }
        return release(upTo: pushStart ?? .max)
    }

    /// The rest, at the end of the recording at `end`: a push still held is written as held
    /// until then, and an `end` line closes the scenario.
    public mutating func finish(at end: MachineInstant) -> [String] {
        let time = end.nanoseconds &- origin.nanoseconds
        if let start = pushStart {
            addPush(from: start, to: time)
            pushStart = nil
        }
        var lines = release(upTo: .max)
        lines.append("\(Self.seconds(Self.roundedUp(Swift.max(time, lastWritten)))) end")
        return lines
    }

    /// A push held from `start` to `end` (when the line settled each way): released at its own
    /// time even when the line's rule moved its start later.
    private mutating func addPush(from start: Int64, to end: Int64) {
        let at = earliest(start, on: .push)
        let hold = Self.roundedUp(Swift.max(1_000, end &- at))
        add(at, "push hold \(Self.seconds(hold))", on: .push, width: .nanoseconds(hold))
    }

    /// The earliest time, rounded up to the microsecond, at or after `time` that a scenario
    /// may give an input on `role`'s line.
    private func earliest(_ time: Int64, on role: InputRole) -> Int64 {
        Self.roundedUp(Swift.max(time, lastWrittenFloor, lineFree[role] ?? 0))
    }

    /// `text` at `time`, or — for an input on `role`'s line — at the earliest time the line's
    /// rule allows; that line is then busy for the input's pulse (`width`, by default the
    /// board's simulated pulse for `role`) or level.
    private mutating func add(
        _ time: Int64, _ text: String, on role: InputRole? = nil, width: Duration? = nil, comment: Bool = false
    ) {
        // Never before 0 (an edge in the first debounce period) nor before a line already
        // released: a scenario's times do not go back.
        var at = Self.roundedUp(Swift.max(time, lastWrittenFloor))
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

    static func seconds(_ nanoseconds: Int64) -> String {
        Duration.nanoseconds(nanoseconds).secondsText
    }

    /// Up to the next whole microsecond (the precision `seconds` writes): a time rounded down
    /// could be earlier than the line's rule allows.
    static func roundedUp(_ nanoseconds: Int64) -> Int64 {
        let remainder = nanoseconds % 1_000
        return remainder > 0 ? nanoseconds &+ (1_000 - remainder) : nanoseconds
    }
}
