import ControllerFSM
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A bounded queue of commands for the event loop, with a descriptor that polls readable while
/// commands wait, so the loop can sleep in one `ppoll` on its inputs and its commands.
///
/// Posting never blocks and never allocates (a full inbox refuses and counts the refusal); the
/// loop takes commands between events, so a command never interrupts the event in hand.
public final class CommandInbox: Sendable {
    /// Far more than a person or a script at a control socket sends between two turns of the
    /// loop; a flood beyond it is refused, not buffered.
    public static let capacity = 64

    private struct Queue {
        var slots: [DaemonCommand?]
        var head = 0
        var count = 0
        var refused = 0
    }

    private let queue: Guarded<Queue>
    /// Set by ``requestStop()``: a stop is never refused, however full the queue.
    private let stopping = Atomic<Bool>(false)
    /// The wake-up pipe: one byte per post, drained by the loop. Non-blocking at both ends: a
    /// full pipe means the loop is already awake.
    private let readEnd: Int32
    private let writeEnd: Int32

    /// - Throws: the errno when the pipe cannot be made (out of descriptors).
    public init() throws(InboxError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw InboxError(errno: errno) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        queue = Guarded(Queue(slots: Array(repeating: nil, count: Self.capacity)))
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// What the event loop polls (POLLIN) beside its inputs.
    public var pollDescriptor: Int32 { readEnd }

    /// Queues `command`; false (and counted) when the inbox is full.
    @discardableResult
    public func post(_ command: DaemonCommand) -> Bool {
        let queued = queue.withLock { queue in
            guard queue.count < Self.capacity else {
                queue.refused += 1
                return false
            }
            queue.slots[(queue.head + queue.count) % Self.capacity] = command
            queue.count += 1
            return true
        }
        if queued {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
        return queued
    }

    /// Asks the loop to stop after the event in hand; cannot be refused.
    public func requestStop() {
        stopping.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// The oldest command, if any (event loop only); `.stop` first once a stop was requested.
    public func take() -> DaemonCommand? {
        if stopping.load(ordering: .acquiring) { return .stop }
        return queue.withLock { queue in
            guard queue.count > 0 else { return nil }
            let command = queue.slots[queue.head]
            queue.slots[queue.head] = nil
            queue.head = (queue.head + 1) % Self.capacity
            queue.count -= 1
            return command
        }
    }

    /// Empties the wake-up pipe (event loop only, before taking the commands it announced).
    public func clearWakeUps() {
        var sink: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        while withUnsafeMutableBytes(of: &sink, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Commands waiting.
    public var depth: Int { queue.withLock { $0.count } }

    /// Commands refused because the inbox was full.
    public var refusedCount: Int { queue.withLock { $0.refused } }
}

public struct InboxError: Error, CustomStringConvertible {
    public var errno: Int32
    public var description: String {
        "cannot make the event loop's command pipe: \(String(cString: strerror(errno))) (too many open files? raise LimitNOFILE)"
    }
}
