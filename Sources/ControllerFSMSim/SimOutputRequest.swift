#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ControllerFSM

/// Output lines held on a ``SimChip``. Every change of value reaches the chip's sink with its
/// virtual time; writing the value a line already has is not a change and is not reported.
/// Released when released explicitly or when the last reference goes away; the lines keep
/// their last level.
public final class SimOutputRequest: GPIOOutputRequest, Sendable {
    /// The chip the lines are on.
    public let chip: SimChip
    /// The lines as requested, in request order.
    public let settings: [OutputLineSettings]
    public let offsets: [GPIOLineOffset]
    /// Who holds the lines.
    public let consumer: String
    let id: UInt64

    init(chip: SimChip, settings: [OutputLineSettings], consumer: String, id: UInt64) {
        self.chip = chip
        self.settings = settings
        self.offsets = settings.map(\.offset)
        self.consumer = consumer
        self.id = id
    }

    deinit { release() }

    /// Drives the line; a failure injected with ``SimChip/failWrites(to:_:)`` leaves it as it was.
    public func write(_ value: Bool, at index: Int) throws(GPIOError) {
        guard index >= 0 && index < offsets.count else {
            throw .invalidRequest(
                chip: chip.info.name, line: nil,
                reason: "line index \(index) is outside the request of \(offsets.count) lines")
        }
        let line = Int(offsets[index].rawValue)
        let now = chip.clock.now()
        let change = try chip.state.withLock { (state) throws(GPIOError) -> SimOutputChange? in
            if state.isGone(forRequest: id) { throw chip.chipGone }
            guard state.lines[line].holder == .output(id: id, index: index) else {
                throw .requestReleased(chip: chip.info.name, consumer: consumer)
            }
            if state.lines[line].writesFail {
                throw .writeFailed(chip: chip.info.name, line: state.lineID(line), errno: EIO)
            }
            guard state.lines[line].outputValue != value else { return nil }
            let high = value != settings[index].activeLow
            state.lines[line].outputValue = value
            state.lines[line].isHigh = high
            return SimOutputChange(
                time: now, offset: offsets[index], name: state.lines[line].name, value: value, isHigh: high)
        }
        // Outside the lock: the sink may look at the chip.
        if let change { chip.outputSink(change) }
    }

    public func release() {
        chip.state.withLock { state in
            for (index, offset) in offsets.enumerated()
            where state.lines[Int(offset.rawValue)].holder == .output(id: id, index: index) {
                state.lines[Int(offset.rawValue)].free()
            }
        }
    }
}
