import ControllerFSM
import ControllerHost

/// The simulated pulses a line has been given and not yet started, in start order: a `ctl
/// pulse` on a busy line waits its turn, so at a stop some may still be waiting. They were
/// accepted, so they are never dropped in silence — the stop names them.
///
/// Fixed capacity, reserved at start-up: the event loop's thread must not allocate.
struct PendingPulses {
    /// Pulses that may wait on one line at once; a line's pulse takes about 60 ms, so this is
    /// a quarter of a minute of coins, far more than a person at the control socket sends.
    static let capacityPerLine = 256

    private var starts: [Int64]
    private var head = 0
    private(set) var count = 0

    init() {
        starts = Array(repeating: 0, count: Self.capacityPerLine)
    }

    var isFull: Bool { count == Self.capacityPerLine }

    /// Notes a pulse that starts at `start` (not before the last one noted).
    mutating func append(_ start: MachineInstant) -> Bool {
        guard !isFull else { return false }
        starts[(head + count) % Self.capacityPerLine] = start.nanoseconds
        count += 1
        return true
    }

    /// Forgets the pulses that have started by `now`: their edges are on the chip.
    mutating func removeStarted(by now: MachineInstant) {
        while count > 0, starts[head] <= now.nanoseconds {
            head = (head + 1) % Self.capacityPerLine
            count -= 1
        }
    }
}
