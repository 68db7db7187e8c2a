import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A descriptor an event loop polls (POLLIN) beside its inputs, so that another thread can wake
/// it: to take what was posted to its `PollableInbox`, or to read a `SharedMachine`'s
/// `nextDeadline` again after a send moved it (give the machine this wake-up). An eventfd: one
/// descriptor, and a count that any number of rings leave readable until the loop clears it.
///
/// `ringAlways()` always makes it readable (one write). `ring()`, what a `SharedMachine` calls
/// on every send, writes only when the loop said it is going to sleep: one load while the loop
/// is awake, so a busy sender pays no system call per event. The loop calls
/// `prepareToSleep()` before it reads what decides its timeout (the deadline, its queues) and
/// `clear()` once awake.
///
/// Memory orderings (the store-buffer pattern, as in `Doorbell`):
/// - Sender: publishes (the machine changed under its lock, or an inbox entry's releasing
///   store), then a sequentially consistent fence (`SharedMachine` makes it), then `ring()`
///   loads `sleeping`.
/// - Loop: `prepareToSleep()` stores `sleeping` and then fences, sequentially consistent; then
///   it reads the publication (under the dispatch lock, or an inbox slot's acquiring load).
/// - Either the sender's fence comes first, and the loop's read sees the publication, or the
///   loop's does, and the sender sees `sleeping` and writes. So a loop never sleeps past a send
///   it did not see. The loop's fence is needed because what it reads next is not sequentially
///   consistent: a store followed by a load of another location, even a releasing store and an
///   acquiring load, may be reordered (x86's store buffer; arm64 with `LDAPR`).
/// - `ringAlways()` needs none of this: the eventfd's write and the loop's `poll` and read are
///   ordered by the kernel's lock on the eventfd, and what was published before the write is
///   seen by the loop once `poll` said it is readable.
/// - `clear()` stores `sleeping` and then reads the eventfd empty: a ring that sees the old
///   `true` writes after or before that read; before, its write is taken and its publication
///   is read by the loop's turn that follows; after, the descriptor stays readable and costs
///   the next sleep one empty turn, never a lost wake-up.
public final class WakeUpDescriptor: MachineWakeUp {
    /// What the loop polls for POLLIN.
    public let descriptor: Int32
    /// Between the loop's `prepareToSleep()` and its `clear()`.
    private let sleeping = Atomic<Bool>(false)

    /// - Throws: the errno when the eventfd cannot be made (out of descriptors).
    public init() throws(WakeUpError) {
        let made = WakeUpSyscalls.make()
        guard made >= 0 else { throw WakeUpError(errno: SystemErrno.current) }
        descriptor = made
    }

    deinit {
        WakeUpSyscalls.close(descriptor)
    }

    /// Wakes the loop if it said it is going to sleep. Call it after a sequentially consistent
    /// fence following what it announces (`SharedMachine` does).
    public func ring() {
        if sleeping.load(ordering: .sequentiallyConsistent) { WakeUpSyscalls.ring(descriptor) }
    }

    /// Makes the descriptor readable, whatever the loop is doing: for what is rare and must be
    /// seen at the loop's next turn (a command, a stop).
    public func ringAlways() {
        WakeUpSyscalls.ring(descriptor)
    }

    /// The loop, before it reads what decides how long it sleeps: from here on, `ring()` wakes it.
    public func prepareToSleep() {
        sleeping.store(true, ordering: .sequentiallyConsistent)
        // Pairs with the sender's fence before `ring()`: the flag, then the loop's reads.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
    }

    /// The loop, once awake: makes the descriptor unreadable again and `ring()` silent until
    /// the next `prepareToSleep()`. A ring that lands after this leaves it readable, which costs
    /// the next sleep one empty turn, never a lost wake-up.
    public func clear() {
        sleeping.store(false, ordering: .sequentiallyConsistent)
        WakeUpSyscalls.clear(descriptor)
    }
}

/// The eventfd could not be made.
public struct WakeUpError: Error, Equatable, CustomStringConvertible {
    public var errno: Int32

    public init(errno: Int32) { self.errno = errno }

    public var description: String {
        "cannot make the event loop's wake-up descriptor (eventfd): \(SystemErrno.describe(errno))\(fix)"
    }

    /// What to do about it, for the errors that have a known fix.
    private var fix: String {
        switch errno {
        case EMFILE: "; the process has all the descriptors it may: raise LimitNOFILE= in its unit (or ulimit -n)"
        case ENFILE: "; the system's file table is full: close programs or raise fs.file-max"
        default: ""
        }
    }
}
