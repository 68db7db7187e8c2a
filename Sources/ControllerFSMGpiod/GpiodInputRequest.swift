import CGpiod
import ControllerFSM

/// Input lines held through libgpiod, reporting both edges.
///
/// Events are read into a buffer reserved when the lines were requested (libgpiod 2's
/// `gpiod_edge_event_buffer`, libgpiod 1.6's `gpiod_line_event_read_multiple` into a fixed
/// array), so reading never allocates. Timestamps are the kernel's, on `CLOCK_MONOTONIC`
/// (`MonotonicClock`'s timeline). Sequence numbers are the kernel's on libgpiod 2, so a gap is
/// a lost edge; libgpiod 1.6's kernel interface has none, and the request numbers the events it
/// reads.
public final class GpiodInputRequest: GPIOInputRequest {
    public let chip: GpiodChip
    public let offsets: [GPIOLineOffset]
    public let consumer: String
    /// `true` on libgpiod 2: the kernel applied each line's `debounce`.
    public let edgesAreDebounced: Bool
    private var request: OpaquePointer?
    private let edges: UnsafeMutableBufferPointer<cgpiod_edge>

    init(chip: GpiodChip, request: OpaquePointer, offsets: [GPIOLineOffset], consumer: String) {
        self.chip = chip
        self.request = request
        self.offsets = offsets
        self.consumer = consumer
        edgesAreDebounced = chip.library.kernelDebounces
        edges = .allocate(capacity: Int(CGPIOD_EVENTS_PER_READ))
    }

    deinit {
        release()
        edges.deallocate()
    }

    public func readValue(at index: Int) throws(GPIOError) -> Bool {
        let request = try held(index: index)
        let value = cgpiod_request_get_value(request, UInt32(index))
        guard value >= 0 else {
            throw GpiodFailure.reading(chip: chip.info, line: chip.lineID(offsets[index]), errno: Syscalls.errno)
        }
        return value == 1
    }

    public func readEdgeEvents(into buffer: UnsafeMutableBufferPointer<EdgeEvent>) throws(GPIOError) -> Int {
        let request = try held(index: nil)
        let count = cgpiod_request_read_edges(request, edges.baseAddress, Swift.min(buffer.count, edges.count))
        guard count >= 0 else {
            throw GpiodFailure.reading(chip: chip.info, line: nil, errno: Syscalls.errno)
        }
        for index in 0..<Int(count) {
            let edge = edges[index]
            buffer[index] = EdgeEvent(
                lineIndex: Int(edge.index), kind: edge.rising ? .rising : .falling,
                timestamp: MachineInstant(nanoseconds: Int64(clamping: edge.timestamp_ns)),
                sequence: edge.seqno &- 1)
        }
        return Int(count)
    }

    /// `true` when events wait, and also when the descriptor reports an error (the chip went
    /// away), so that the next read throws the reason instead of the loop waiting forever.
    public var hasPendingEdgeEvents: Bool {
        guard let request else { return false }
        return cgpiod_request_has_events(request) != 0
    }

    public var pollDescriptor: Int32? {
        request.map { cgpiod_request_fd($0) }
    }

    public func release() {
        guard let request else { return }
        cgpiod_request_release(request)
        self.request = nil
    }

    private func held(index: Int?) throws(GPIOError) -> OpaquePointer {
        guard let request else { throw .requestReleased(chip: chip.info.name, consumer: consumer) }
        if let index, !offsets.indices.contains(index) {
            throw .invalidRequest(
                chip: chip.info.name, line: nil,
                reason: "line index \(index) is outside the request's \(offsets.count) lines")
        }
        return request
    }
}
