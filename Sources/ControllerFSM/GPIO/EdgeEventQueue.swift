/// A first-in first-out queue of edge events with a capacity fixed at creation.
///
/// Like the kernel's per-request event buffer it never grows: when full, appending drops the
/// *oldest* event and counts it, so a consumer that falls behind sees the newest levels (and a
/// gap in sequence numbers) instead of making the producer allocate.
///
/// Mutate it in place (a stored property, `inout`): a copy shares storage until the next
/// write, which then allocates.
public struct EdgeEventQueue: Sendable {
    private var storage: [EdgeEvent]
    private var head = 0
    /// Events waiting.
    public private(set) var count = 0
    /// Events dropped because the queue was full, since creation.
    public private(set) var droppedCount = 0

    /// Reserves room for `capacity` events, the most it will ever hold.
    public init(capacity: Int) {
        precondition(capacity > 0, "an EdgeEventQueue needs a capacity of at least 1 (got \(capacity))")
        storage = Array(repeating: EdgeEvent(lineIndex: 0, kind: .rising, timestamp: .zero), count: capacity)
    }

    /// The most events the queue holds.
    public var capacity: Int { storage.count }
    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == storage.count }

    /// The oldest event, left in the queue.
    public var first: EdgeEvent? { count == 0 ? nil : storage[head] }

    /// Appends `event`, dropping the oldest one first when the queue is full.
    public mutating func append(_ event: EdgeEvent) {
        if count == storage.count {
            head = wrapped(head + 1)
            count -= 1
            droppedCount += 1
        }
        storage[wrapped(head + count)] = event
        count += 1
    }

    /// Removes and returns the oldest event.
    public mutating func popFirst() -> EdgeEvent? {
        guard count > 0 else { return nil }
        let event = storage[head]
        head = wrapped(head + 1)
        count -= 1
        return event
    }

    /// Moves up to `buffer.count` of the oldest events into `buffer`; returns how many.
    public mutating func pop(into buffer: UnsafeMutableBufferPointer<EdgeEvent>) -> Int {
        let n = min(count, buffer.count)
        for i in 0..<n {
            buffer[i] = storage[head]
            head = wrapped(head + 1)
        }
        count -= n
        return n
    }

    private func wrapped(_ index: Int) -> Int {
        index >= storage.count ? index - storage.count : index
    }
}
