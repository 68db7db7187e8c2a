import ControllerFSM
import Turnstile

/// Turns the inputs a controller took into scenario lines that `turnstiled simulate --script`
/// replays on the same board: a field problem becomes a test case.
///
/// Edges are written at the moment their line settled (the debounced edge's time less the
/// line's debounce period), so the replay's own pulse, debounced the same way, is taken when
/// the original was, to within the board's simulated bounce window. A push is written with the
/// width it was held (`push hold`), so a jam replays as a jam. Lines come out in time order: a
/// push that is still held holds back what came after it until it is released.
public struct ScenarioTranscriber {
    private let board: BoardFile
    /// The controller's time at the daemon's start: scenario time 0.
    private let origin: MachineInstant
    /// Written lines not yet released, by time (a push in progress holds them back).
    private var pending: [(time: Int64, text: String)] = []
    private var pushStart: Int64?
    private var lastWritten: Int64 = 0

    public init(board: BoardFile, origin: MachineInstant) {
        self.board = board
        self.origin = origin
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
    public mutating func take(_ record: InputRecord) -> [String] {
        let time = record.time.nanoseconds &- origin.nanoseconds
        switch record.input {
        case .edge(let role, let active):
            let settled = time &- (board.inputs[role]?.debounce.nanosecondCount ?? 0)
            switch (role, active) {
            case (.coin, true): add(settled, "coin")
            case (.service, true): add(settled, "repair")
            case (.emergency, let on): add(settled, "emergency \(on ? "on" : "off")")
            case (.push, true): pushStart = settled
            case (.push, false):
                if let start = pushStart { add(start, "push hold \(Self.seconds(Swift.max(1_000, settled &- start)))") }
                pushStart = nil
            case (.coin, false), (.service, false): break
            }
        case .command(let event):
            // As sent: `event NAME` replays through the controller's command path, so an
            // emergency declared by command stays a command (beside the line, never instead
            // of it) and a repair needs no service line.
            add(time, event == .fault ? "fault" : "event \(event.name)")
        }
        return release(upTo: pushStart ?? .max)
    }

    /// The rest, at the end of the recording at `end`: a push still held is written as held
    /// until then, and an `end` line closes the scenario.
    public mutating func finish(at end: MachineInstant) -> [String] {
        let time = end.nanoseconds &- origin.nanoseconds
        if let start = pushStart {
            add(start, "push hold \(Self.seconds(Swift.max(1_000, time &- start)))")
            pushStart = nil
        }
        var lines = release(upTo: .max)
        lines.append("\(Self.seconds(Swift.max(time, lastWritten))) end")
        return lines
    }

    private mutating func add(_ time: Int64, _ text: String) {
        // Never before 0 (an edge in the first debounce period) nor before a line already
        // released: a scenario's times do not go back.
        let at = Swift.max(time, lastWrittenFloor)
        let line = "\(Self.seconds(at)) \(text)"
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
}
