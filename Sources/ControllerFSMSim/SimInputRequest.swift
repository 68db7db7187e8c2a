#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ControllerFSM

/// Input lines held on a ``SimChip``, with a bounded event buffer like the kernel's.
///
/// Edges are raw (``edgesAreDebounced`` is `false`): run them through `EdgeDebouncer`.
/// Released when released explicitly or when the last reference goes away.
public final class SimInputRequest: GPIOInputRequest, Sendable {
    /// The chip the lines are on.
    public let chip: SimChip
    /// The lines as requested, in request order; build the `EdgeDebouncer` from these.
    public let settings: [InputLineSettings]
    public let offsets: [GPIOLineOffset]
    /// Who holds the lines.
    public let consumer: String
    let slot: Int
    let id: UInt64

    init(chip: SimChip, settings: [InputLineSettings], consumer: String, slot: Int, id: UInt64) {
        self.chip = chip
        self.settings = settings
        self.offsets = settings.map(\.offset)
        self.consumer = consumer
        self.slot = slot
        self.id = id
    }

    deinit { release() }

    /// Always `false`: the simulator delivers every bounce.
    public var edgesAreDebounced: Bool { false }

    /// Always `nil`: simulated edges arrive when the simulation advances, not on a descriptor.
    public var pollDescriptor: Int32? { nil }

    public func readValue(at index: Int) throws(GPIOError) -> Bool {
        try chip.state.withLock { (state) throws(GPIOError) -> Bool in
            try check(state)
            let line = try line(at: index, in: state)
            if state.failingReads > 0 {
                state.failingReads -= 1
                throw .readFailed(chip: chip.info.name, line: state.lineID(line), errno: EIO)
            }
            return state.lines[line].isHigh != settings[index].activeLow
        }
    }

    public func readEdgeEvents(into buffer: UnsafeMutableBufferPointer<EdgeEvent>) throws(GPIOError) -> Int {
        try chip.state.withLock { (state) throws(GPIOError) -> Int in
            try check(state)
            if state.failingReads > 0 {
                state.failingReads -= 1
                throw .readFailed(chip: chip.info.name, line: nil, errno: EIO)
            }
            return state.inputs[slot]!.events.pop(into: buffer)
        }
    }

    /// True as well when the chip is gone, as a removed device's descriptor polls readable in
    /// the kernel: the read that follows is what tells the reader (`GPIOError/chipGone(chip:path:)`).
    public var hasPendingEdgeEvents: Bool {
        chip.state.withLock { state in
            state.isGone(forRequest: id)
                || (state.holdsInput(slot: slot, id: id) && !state.inputs[slot]!.events.isEmpty)
        }
    }

    /// Events lost because the buffer was full when they happened (the oldest go first, and
    /// the sequence numbers show the gap).
    public var droppedEdgeEventCount: Int {
        chip.state.withLock { state in
            state.holdsInput(slot: slot, id: id) ? state.inputs[slot]!.events.droppedCount : 0
        }
    }

    /// How many events the buffer holds before it drops the oldest.
    public var eventBufferCapacity: Int { chip.eventBufferCapacityPerLine * settings.count }

    public func release() {
        chip.state.withLock { state in
            guard state.holdsInput(slot: slot, id: id) else { return }
            state.inputs[slot] = nil
            for offset in offsets { state.lines[Int(offset.rawValue)].free() }
        }
    }

    private func check(_ state: borrowing SimChipState) throws(GPIOError) {
        if state.isGone(forRequest: id) { throw chip.chipGone }
        if !state.holdsInput(slot: slot, id: id) {
            throw .requestReleased(chip: chip.info.name, consumer: consumer)
        }
    }

    private func line(at index: Int, in state: borrowing SimChipState) throws(GPIOError) -> Int {
        guard index >= 0 && index < offsets.count else {
            throw .invalidRequest(
                chip: chip.info.name, line: nil,
                reason: "line index \(index) is outside the request of \(offsets.count) lines")
        }
        return Int(offsets[index].rawValue)
    }
}
