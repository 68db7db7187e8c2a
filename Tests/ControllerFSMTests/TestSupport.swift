import ControllerFSM
import ControllerFSMSim
import Synchronization

/// Milliseconds as an instant, for readable timelines.
func ms(_ value: Int64) -> MachineInstant { MachineInstant(nanoseconds: value * 1_000_000) }

/// Microseconds as an instant.
func us(_ value: Int64) -> MachineInstant { MachineInstant(nanoseconds: value * 1_000) }

func edge(_ line: Int, _ kind: EdgeKind, _ time: MachineInstant) -> EdgeEvent {
    EdgeEvent(lineIndex: line, kind: kind, timestamp: time)
}

/// The parts of an event a test compares (sequence numbers are checked separately).
struct Seen: Hashable, CustomStringConvertible {
    var line: Int
    var kind: EdgeKind
    var time: MachineInstant

    init(_ line: Int, _ kind: EdgeKind, _ time: MachineInstant) {
        self.line = line
        self.kind = kind
        self.time = time
    }

    init(_ event: EdgeEvent) { self.init(event.lineIndex, event.kind, event.timestamp) }

    var description: String { "(\(line) \(kind) \(time.nanoseconds) ns)" }
}

/// Collects what an output sink hears; the sink is `@Sendable`, so the list sits behind a lock.
final class OutputRecorder: Sendable {
    private let changes = Mutex<[SimOutputChange]>([])

    var sink: @Sendable (SimOutputChange) -> Void { { change in self.changes.withLock { $0.append(change) } } }

    var all: [SimOutputChange] { changes.withLock { $0 } }
}

extension EdgeDebouncer {
    /// Every edge accepted by `now`.
    mutating func drain(now: MachineInstant) -> [EdgeEvent] {
        var out: [EdgeEvent] = []
        while let event = nextAcceptedEdge(now: now) { out.append(event) }
        return out
    }
}

/// What one simulated run saw: raw edges from the chip and edges accepted by the debouncer.
struct DebouncedRun {
    var raw: [EdgeEvent] = []
    var accepted: [EdgeEvent] = []
}

/// Runs `chip` until `end` the way a controller's event loop would: advance to the earliest of
/// the next raw edge and the debouncer's deadline, read the raw edges in batches into a
/// reused buffer, feed them, take what the debouncer accepted.
func runDebounced(
    _ chip: SimChip, _ request: SimInputRequest, _ debouncer: inout EdgeDebouncer, until end: MachineInstant
) throws -> DebouncedRun {
    var run = DebouncedRun()
    let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 8)
    defer { buffer.deallocate() }
    while true {
        let candidates = [chip.nextEventTime, debouncer.nextDeadline].compactMap { $0 }
        guard let next = candidates.min(), next <= end else { break }
        let now = max(next, chip.clock.now())
        chip.advance(to: now)
        while true {
            let count = try request.readEdgeEvents(into: buffer)
            if count == 0 { break }
            for event in buffer[0..<count] {
                run.raw.append(event)
                debouncer.feed(event)
            }
        }
        run.accepted += debouncer.drain(now: now)
    }
    chip.advance(to: end)
    return run
}
