@testable import ControllerFSM
import ControllerTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite("Shared machine")
struct SharedMachineTests {
    /// A window that shows a blocking send does not finish while the inbox is full: a slow
    /// machine only gives the send less time to finish wrongly, never makes a waiting send
    /// finish, so it cannot fail a correct machine.
    static let stillWaitingWindow: DispatchTimeInterval = .milliseconds(200)

    enum S: Int, MachineSymbol { case counting }
    enum E: Int, MachineSymbol { case add, hold }

    /// Counts `add` events; `hold` blocks the dispatching thread until the test lets it go.
    final class Gatekeeper: @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
    }

    func counter(gatekeeper: Gatekeeper = Gatekeeper(), inbox: Int = 64) throws -> ConcurrentMachine<S, E, Int, ManualClock> {
        var definition = MachineDefinition<S, E, Int>(initial: .counting)
        definition.state(.counting) { s in
            s.on(.add) { count, _ in count += 1 }
            s.on(.hold) { _, _ in
                gatekeeper.entered.signal()
                gatekeeper.release.wait()
            }
        }
        let shared = ConcurrentMachine(StateMachine(table: try definition.compile(), context: 0), clock: ManualClock(), inboxCapacity: inbox)
        shared.start()
        return shared
    }

    @Test("senders on several threads at once lose nothing")
    func concurrentSendersLoseNothing() throws {
        let shared = try counter(inbox: 8)
        let threads = 4
        let perThread = 25_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<perThread { shared.send(.add) }
        }
        #expect(shared.withMachine { $0.context } == threads * perThread)
        #expect(shared.statistics.dispatched == threads * perThread)
        #expect(shared.refusedCount == 0)
    }

    /// Senders, and sends each at most (or as many as fit in `StressDeadline.budget`), of the
    /// stress test below.
    static let stressSenders = 4
    static let stressSendsPerSender = 20_000

    /// Each sender's own event.
    enum Sender: Int, MachineSymbol { case zero, one, two, three }

    /// Written by whichever thread dispatches: each sender's count, their total, and the last
    /// event's payload (six words), each checked whole by the next dispatcher and by a reader.
    struct Tally {
        var counts = [Int](repeating: 0, count: SharedMachineTests.stressSenders)
        var total = 0
        var last = StressPayload(producer: 0, sequence: -1)
        var torn = 0

        var isConsistent: Bool { last.isWhole && counts.reduce(0, +) == total }

        mutating func take(_ sender: Int) {
            if !isConsistent { torn += 1 }
            last = StressPayload(producer: sender, sequence: counts[sender])
            counts[sender] += 1
            total += 1
        }
    }

    /// The dispatch lock and the inbox hand the machine from thread to thread: a sender that
    /// finds the lock taken leaves its event in the inbox for the holder, or takes the lock
    /// again itself once the holder let go (the fences of `dispatchPending` and
    /// `publishedAfterLettingGo`). Every dispatcher must see the last one's writes whole, no
    /// event may be lost or run twice, and a reader holding the lock sees a consistent machine.
    /// (That none is left behind once the sends returned is the test above's: there, nothing
    /// else takes the lock before the count is read.)
    @Test("stress: senders on several threads and a reader: no event lost or run twice; every dispatcher sees the last one's writes whole")
    func stressConcurrentSendersAndAReader() throws {
        var definition = MachineDefinition<S, Sender, Tally>(initial: .counting)
        definition.state(.counting) { s in
            for sender in Sender.allCases { s.on(sender) { tally, _ in tally.take(sender.rawValue) } }
        }
        let shared = ConcurrentMachine(StateMachine(table: try definition.compile(), context: Tally()), clock: ManualClock(), inboxCapacity: 8)
        shared.start()
        let sendersDone = Atomic<Bool>(false)
        let inconsistentReads = Atomic<Int>(0)
        let reader = DispatchGroup()
        DispatchQueue.global().async(group: reader) {
            while !sendersDone.load(ordering: .acquiring) {
                if !shared.withMachine({ $0.context.isConsistent }) { inconsistentReads.add(1, ordering: .relaxed) }
            }
        }
        let sent = Guarded([Int](repeating: 0, count: Self.stressSenders))
        let deadline = StressDeadline()
        DispatchQueue.concurrentPerform(iterations: Self.stressSenders) { sender in
            let event = Sender(rawValue: sender)!
            var count = 0
            for _ in 0..<Self.stressSendsPerSender where !deadline.hasPassed {
                shared.send(event)
                count += 1
            }
            sent.withLock { $0[sender] = count }
        }
        sendersDone.store(true, ordering: .releasing)
        reader.wait()
        let tally = shared.withMachine { $0.context }
        let counts = sent.withLock { $0 }
        #expect(tally.counts == counts)
        #expect(tally.total == counts.reduce(0, +))
        #expect(counts.reduce(0, +) > 0)  // a thread that starts after the deadline sends none
        #expect(tally.torn == 0, "a dispatcher saw the previous one's writes torn")
        #expect(inconsistentReads.load(ordering: .relaxed) == 0, "a reader holding the lock saw a torn machine")
        #expect(shared.statistics.dispatched == counts.reduce(0, +))
        #expect(shared.refusedCount == 0)
    }

    @Test("without contention send returns the event's own outcome")
    func uncontendedOutcome() throws {
        let shared = try counter()
        #expect(shared.send(.add) == .dispatched(.handledInternally))
        #expect(shared.trySend(.add) == .dispatched(.handledInternally))
        #expect(shared.can(.add))
    }

    @Test("while another thread dispatches, sends are queued; trySend refuses when the inbox is full and counts it; send waits for room")
    func queueFullRefusalAndWaiting() throws {
        let gatekeeper = Gatekeeper()
        let shared = try counter(gatekeeper: gatekeeper, inbox: 4)
        let dispatcher = DispatchGroup()
        DispatchQueue.global().async(group: dispatcher) { shared.send(.hold) }
        gatekeeper.entered.wait()

        for _ in 0..<4 { #expect(shared.trySend(.add) == .queued) }
        #expect(shared.trySend(.add) == .refused)
        #expect(shared.trySend(.add) == .refused)
        #expect(shared.refusedCount == 2)

        let waiter = DispatchGroup()
        let waiterDone = Atomic<Bool>(false)
        DispatchQueue.global().async(group: waiter) {
            shared.send(.add)
            waiterDone.store(true, ordering: .releasing)
        }
        #expect(waiter.wait(timeout: .now() + Self.stillWaitingWindow) == .timedOut, "a blocking send waits while the inbox is full")
        let finishedEarly = waiterDone.load(ordering: .acquiring)
        #expect(!finishedEarly)

        gatekeeper.release.signal()
        dispatcher.wait()
        waiter.wait()
        #expect(shared.withMachine { $0.context } == 5, "4 queued + 1 that waited; the 2 refused were not taken")
        #expect(shared.statistics.dispatched == 6)
    }

    @Test("an event sent while another thread holds the machine only to read it is run when that thread lets go, not left for the next send")
    func aSendDuringAReadIsRunWhenTheReaderLetsGo() throws {
        let shared = try counter()
        let holding = DispatchSemaphore(value: 0)
        let sent = DispatchSemaphore(value: 0)
        let outcome = Mutex<SendOutcome?>(nil)
        DispatchQueue.global().async {
            holding.wait()
            outcome.withLock { $0 = shared.send(.add) }
            sent.signal()
        }
        // The reader keeps the lock until the other thread's send has returned, as a loop
        // reading its next deadline might: the event waits in the inbox for the lock's holder.
        shared.withMachine { _ in
            holding.signal()
            sent.wait()
        }
        #expect(outcome.withLock { $0 } == .queued)
        // Before anyone sends again. (`withMachine` here would run the inbox too, but only
        // after its own read: it would still see 0 if the first reader had left the event.)
        #expect(shared.withMachine { $0.context } == 1, "the event sent during the read was left in the inbox")
        #expect(shared.statistics.dispatched == 1)
    }

    /// A lock whose try path, once `pausing`, waits a moment first, so that a thread asleep in
    /// `withLock` gets the lock before a thread that just let go and tries again (as a loaded
    /// machine may let it). `waiting` counts the threads that asked `withLock`.
    final class TryLaterLock: MachineLock, @unchecked Sendable {
        /// Far longer than a futex wake-up takes, even on a loaded machine.
        static let pause: Double = 0.2
        let lock = MutexLock()
        let waiting = Atomic<Int>(0)
        let pausing = Atomic<Bool>(false)
        init() {}
        func withLock<Result>(_ body: () -> Result) -> Result {
            waiting.add(1, ordering: .relaxed)
            return lock.withLock(body)
        }
        func withLockIfAvailable<Result>(_ body: () -> Result) -> Result? {
            if pausing.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: Self.pause) }
            return lock.withLockIfAvailable(body)
        }
    }

    /// A loop reads `nextDeadline` to decide how long to sleep, and is woken only by sends made
    /// after it said it sleeps: a send queued before (while another thread held the machine)
    /// must be in the deadline it reads. Here the holder lets go and the loop, waiting for the
    /// lock, gets it before the holder runs the queued coin: the loop must run it first.
    @Test("a deadline read while a sent event waits in the inbox includes that event's timer")
    func aDeadlineReadAfterAQueuedSendIncludesIt() throws {
        typealias Shared = SharedMachine<GateState, GateEvent, GateContext, RuntimeObservers<GateState, GateEvent>, TryLaterLock, ManualClock>
        let shared = Shared(StateMachine(table: try gateTable(), context: GateContext()), clock: ManualClock())
        shared.start()
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        // Threads of their own: two blocks on Dispatch's pool may run one after the other.
        Thread {
            shared.withMachine { _ in
                holding.signal()
                release.wait()
            }
            ended.signal()
        }.start()
        holding.wait()
        #expect(shared.send(.coin) == .queued)
        let deadline = Guarded<MachineInstant?>(nil)
        Thread {
            let read = shared.nextDeadline
            deadline.withLock { $0 = read }
            ended.signal()
        }.start()
        // `start()`, the holder, and the loop waiting for the lock.
        let giveUp = ContinuousClock.now + TestTimeouts.handOver
        while shared.dispatchLock.waiting.load(ordering: .relaxed) < 3 && ContinuousClock.now < giveUp { usleep(100) }
        usleep(10_000)  // into the futex wait, most likely; a loop not yet there only makes the test pass
        shared.dispatchLock.pausing.store(true, ordering: .relaxed)
        release.signal()
        #expect(ended.wait(timeout: TestTimeouts.handOver.fromNow) == .success)
        #expect(ended.wait(timeout: TestTimeouts.handOver.fromNow) == .success)
        #expect(deadline.withLock { $0 } == at(5), "the loop read the deadline before running the coin sent before it")
    }

    @Test("timers on a shared machine follow its clock")
    func sharedTimers() throws {
        let clock = ManualClock()
        let shared = ConcurrentMachine(StateMachine(table: try gateTable(), context: GateContext()), clock: clock)
        shared.start()
        shared.send(.coin)
        #expect(shared.nextDeadline == at(5))
        clock.advance(by: .seconds(3))
        shared.send(.coin)
        clock.advance(by: .seconds(3))
        shared.fireDueTimers()
        #expect(shared.state == .unlocked, "the coin at 3 s moved the deadline to 8 s")
        clock.advance(by: .seconds(2))
        shared.fireDueTimers()
        #expect(shared.state == .locked)
    }
}
