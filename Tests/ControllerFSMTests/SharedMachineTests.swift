import ControllerFSM
import Dispatch
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
