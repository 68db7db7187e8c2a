import Synchronization

/// A fixed-size ring of records that one thread fills and one other thread drains, neither ever
/// waiting for the other: the machine's trace, or an application's log of what it did (output
/// writes, say) handed to a thread that may allocate, print and block.
///
/// When the ring is full a record is not written and `lostCount` goes up: losses are counted,
/// never silent. Storage is reserved at initialisation; recording does not allocate.
///
/// Memory orderings (one writer at a time, one drainer at a time; no fence, no read-modify-write
/// on the writer's path):
/// - Publish: the writer initialises a slot, then stores `head` releasing; the drainer loads
///   `head` acquiring before it moves records out. So a drainer that sees a position sees its
///   record whole. (A relaxed `head` would let arm64 make the index visible before the record.)
/// - Hand back: the drainer moves a record out, then stores `tail` releasing; the writer loads
///   `tail` acquiring before it reuses a slot. So a slot is never overwritten while it is read.
/// - Between drainers: `draining` is taken acquiring and let go releasing, so the next drainer
///   sees the last one's `tail` (which it loads relaxed) and whatever it wrote in `body`.
/// - Between writers: `record` is for one thread at a time (a machine's dispatching thread:
///   `SharedMachine`'s lock orders one dispatcher after another), so `head` is loaded relaxed
///   and `tailSeenByWriter` is a plain field.
/// - Relaxed and safe: `lost` (a count; nothing is published with it) and `recordedCount` (the
///   writer reading its own `head`).
public final class RecordRing<Record>: @unchecked Sendable {
    // Safety: `storage` slots in [tail, head) belong to the reader, the rest to the writer; the
    // release store of `head` (writer) and of `tail` (reader) hand slots over. Only the writer
    // touches `tailSeenByWriter`.
    @usableFromInline let storage: UnsafeMutablePointer<Record>
    @usableFromInline let mask: Int
    @usableFromInline let head = Atomic<Int>(0)
    @usableFromInline let tail = Atomic<Int>(0)
    @usableFromInline let lost = Atomic<Int>(0)
    /// The writer's copy of `tail`, refreshed only when the ring looks full, so that a record
    /// does not read the line the reader writes. Unchecked: one thread owns it, and a dynamic
    /// exclusivity check cost 100 instructions a record.
    @exclusivity(unchecked) @usableFromInline var tailSeenByWriter = 0
    @usableFromInline let draining = Atomic<Bool>(false)

    /// The largest capacity a ring takes: a billion records, far past any trace, and a power
    /// of two that rounding up cannot overflow.
    public static var maximumCapacity: Int { 1 << 30 }

    /// `capacity` is rounded up to a power of two.
    public convenience init(capacity: Int) {
        self.init(capacity: capacity, firstPosition: 0)
    }

    /// `firstPosition` is for tests of positions that wrap.
    init(capacity: Int, firstPosition: Int) {
        precondition(capacity > 0, "a record ring needs a capacity of at least 1, got \(capacity)")
        precondition(capacity <= Self.maximumCapacity, "a record ring holds at most \(Self.maximumCapacity) records, got \(capacity)")
        var size = 1
        while size < capacity { size <<= 1 }
        storage = .allocate(capacity: size)
        mask = size - 1
        head.store(firstPosition, ordering: .relaxed)
        tail.store(firstPosition, ordering: .relaxed)
        tailSeenByWriter = firstPosition
    }

    deinit {
        // Records written and never drained are released with the ring (a record may hold
        // references).
        var position = tail.load(ordering: .acquiring)
        let end = head.load(ordering: .acquiring)
        while position != end {
            (storage + (position & mask)).deinitialize(count: 1)
            position &+= 1
        }
        storage.deallocate()
    }

    public var capacity: Int { mask + 1 }

    /// Records that could not be written because the ring was full. Relaxed: on another thread
    /// than the writer's, a count that may lag by the latest losses (exact once the writer is
    /// joined, or after its next publication was seen with an acquiring load).
    public var lostCount: Int { lost.load(ordering: .relaxed) }

    /// Records written so far (lost ones not counted), for the writing thread: how far its own
    /// records go, to tell a reader on another thread (see `Turnstile`'s `ReportWatermark`).
    public var recordedCount: Int { head.load(ordering: .relaxed) }

    /// Records written and not yet drained.
    public var pendingCount: Int {
        // The tail first: read after the head, it could have passed it.
        let drained = tail.load(ordering: .acquiring)
        return head.load(ordering: .acquiring) &- drained
    }

    /// Called by the writing thread only (for a trace: the dispatching one; dispatch is
    /// serialised). Always inlined, so that a record's fields are stored straight into its slot:
    /// called, the record was packed into registers and unpacked again, on every event.
    /// Positions only grow and are compared by wrapping difference, so they never trap.
    @inlinable @inline(__always)
    public func record(_ record: Record) {
        let position = head.load(ordering: .relaxed)
        if position &- tailSeenByWriter > mask {
            tailSeenByWriter = tail.load(ordering: .acquiring)
            if position &- tailSeenByWriter > mask {
                lost.add(1, ordering: .relaxed)
                return
            }
        }
        (storage + (position & mask)).initialize(to: record)
        head.store(position &+ 1, ordering: .releasing)
    }

    /// Hands every pending record, oldest first, to `body` and frees their slots. One thread
    /// drains at a time (a second concurrent caller gets 0); the writer is never blocked.
    @inlinable
    @discardableResult
    public func drain(_ body: (Record) -> Void) -> Int {
        if draining.exchange(true, ordering: .acquiring) { return 0 }
        defer { draining.store(false, ordering: .releasing) }
        let end = head.load(ordering: .acquiring)
        var position = tail.load(ordering: .relaxed)
        let start = position
        while position != end {
            body((storage + (position & mask)).move())
            position &+= 1
            // Free each slot as it is read so a long drain does not make the writer lose records.
            tail.store(position, ordering: .releasing)
        }
        return position &- start
    }
}

/// The (time, from, event, to, outcome) of every dispatch, drained by another thread.
public typealias TraceRing<State: MachineSymbol, Event: MachineSymbol> = RecordRing<DispatchRecord<State, Event>>
