/// The direction of an edge, *logically*: after the line's active-low inversion.
public enum EdgeKind: UInt8, Hashable, Sendable {
    /// The line became active.
    case rising
    /// The line became inactive.
    case falling

    @inlinable
    public init(becameActive: Bool) { self = becameActive ? .rising : .falling }

    /// The logical level the line has after this edge.
    @inlinable
    public var isActive: Bool { self == .rising }
}

/// One edge on one line of an input request.
///
/// Plain data with no references, so buffers of events can be reserved once and reused
/// without the runtime ever touching the heap.
public struct EdgeEvent: Hashable, Sendable {
    /// The line's index within its request (the position of its settings in the request), not
    /// its offset on the chip.
    public var lineIndex: Int
    public var kind: EdgeKind
    /// When the edge happened, on the clock the backend stamps events with.
    public var timestamp: MachineInstant
    /// Counts every event the request produced, starting at 0; a gap means events were lost
    /// (the event buffer overflowed), as with the kernel's sequence numbers.
    public var sequence: UInt64

    @inlinable
    public init(lineIndex: Int, kind: EdgeKind, timestamp: MachineInstant, sequence: UInt64 = 0) {
        self.lineIndex = lineIndex
        self.kind = kind
        self.timestamp = timestamp
        self.sequence = sequence
    }
}
