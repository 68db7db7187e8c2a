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
        guard let ends = Syscalls.wakePipe() else { throw InboxError(errno: Syscalls.errno) }
        readEnd = ends.read
        writeEnd = ends.write
        queue = Guarded(Queue(slots: Array(repeating: nil, count: Self.capacity)))
    }

    deinit {
        Syscalls.close(readEnd)
        Syscalls.close(writeEnd)
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
        // A wake-up that fails leaves the command queued: the pipe is full (the loop is
        // awake already) or the loop finds it at its next turn.
        if queued { Syscalls.wake(writeEnd) }
        return queued
    }

    /// Asks the loop to stop after the event in hand; cannot be refused.
    public func requestStop() {
        stopping.store(true, ordering: .releasing)
        Syscalls.wake(writeEnd)
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

    /// The commands still queued once the loop stopped (`take()` answers `stop` first, so they
    /// would go untaken): each was accepted, so the stop names them instead of dropping them in
    /// silence. Call only after the event loop has stopped.
    public func takeLeftovers() -> [DaemonCommand] {
        queue.withLock { queue in
            var commands: [DaemonCommand] = []
            while queue.count > 0 {
                if let command = queue.slots[queue.head], command != .stop { commands.append(command) }
                queue.slots[queue.head] = nil
                queue.head = (queue.head + 1) % Self.capacity
                queue.count -= 1
            }
            return commands
        }
    }

    /// Empties the wake-up pipe (event loop only, before taking the commands it announced).
    public func clearWakeUps() {
        Syscalls.drainWake(readEnd)
    }

    /// Commands waiting.
    public var depth: Int { queue.withLock { $0.count } }

    /// Commands refused because the inbox was full.
    public var refusedCount: Int { queue.withLock { $0.refused } }
}

public struct InboxError: Error, CustomStringConvertible {
    public var errno: Int32
    public var description: String {
        "cannot make the event loop's command pipe: \(Syscalls.describe(errno))\(fix)"
    }

    /// What to do about it, for the errors that have a known fix.
    private var fix: String {
        switch errno {
        case EMFILE: "; turnstiled has all the descriptors it may: raise LimitNOFILE= in its unit (or ulimit -n)"
        case ENFILE: "; the system's file table is full: close programs or raise fs.file-max"
        default: ""
        }
    }
}
