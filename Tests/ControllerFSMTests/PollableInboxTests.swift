@testable import ControllerFSM
import ControllerFSMSim
import Dispatch
import Foundation
import Synchronization
import Testing
import ControllerTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The event loop's inbox and its wake-up: what a daemon's other threads post, a stop that is
/// never refused, and a descriptor that wakes a loop asleep in `poll` — for the inbox's posts and
/// for a `SharedMachine`'s sends. Serialized: the eventfd failures armed here are process-wide,
/// and every test that makes a descriptor is in this suite. A lost wake-up would leave a loop
/// asleep for ever: the waits below give up after a minute and fail.
///
/// Its time limit catches a hang (a lock never released, a service that never stops), not
/// slowness: Swift Testing counts it from the test's start, including time spent waiting for a
/// thread of the cooperative pool — two threads on a 2-core machine, which other suites'
/// synchronous waits (processes, sockets) can hold for minutes under the sanitizers on a loaded
/// machine (a CI run failed three tests of this kind at a 60 s limit). Ten minutes is far past
/// any healthy run and well inside CI's own limit.
@Suite("Pollable inbox", .serialized, .timeLimit(.minutes(Emulation.timeLimitMinutes(10))))
final class PollableInboxTests {
    /// Long enough for any loaded machine; a lost wake-up never ends.
    static var patience: DispatchTime { .now() + .seconds(60) }

    init() {
        WakeUpSyscalls.faults.disarmAll()
    }

    deinit {
        WakeUpSyscalls.faults.disarmAll()
    }

    @Test("entries come out in the order posted; a full inbox refuses and counts; a stop is never refused and comes before what is queued")
    func orderRefusalAndStop() throws {
        let inbox = try PollableInbox<Int>(capacity: 3)
        #expect(inbox.capacity == 4)
        for value in 0..<4 { #expect(inbox.post(value)) }
        #expect(!inbox.post(4))
        #expect(!inbox.post(5))
        #expect(inbox.refusedCount == 2)
        #expect(inbox.depth == 4)
        #expect(inbox.take() == 0)
        #expect(inbox.post(6))

        inbox.requestStop()
        #expect(inbox.isStopRequested)
        #expect(inbox.take() == nil, "the loop stops before taking what is still queued")
        #expect(inbox.takeLeftovers() == [1, 2, 3, 6])
        #expect(inbox.depth == 0)
    }

    @Test("hasWaitingEntry and takeWaiting hand out the queued entries in order, and none once a stop is requested", arguments: [1, 2, 3] as [UInt64])
    func waitingEntriesMatchModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let inbox = try PollableInbox<Int>(capacity: 8)
        var model: [Int] = []
        var stopped = false
        for step in 0..<2_000 {
            switch random.next() % 16 {
            case 0..<9:
                if inbox.post(step) { model.append(step) }
            case 9..<15:
                // As the event loop takes them, up to a few at a time.
                let limit = 1 + Int(random.next() % 4)
                var handed: [Int] = []
                while handed.count < limit, inbox.hasWaitingEntry { handed.append(inbox.takeWaiting()) }
                let expected = stopped ? [] : Array(model.prefix(limit))
                #expect(handed == expected, "step \(step)")
                model.removeFirst(expected.count)
            default:
                if random.next() % 8 == 0 {
                    inbox.requestStop()
                    stopped = true
                }
            }
            #expect(inbox.hasWaitingEntry == (!stopped && !model.isEmpty), "step \(step)")
            #expect(inbox.depth == model.count, "step \(step)")
        }
        #expect(inbox.takeLeftovers() == model)
    }

    @Test("random posts, takes and a stop match a queue model", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func matchesModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let capacity = 1 << Int(random.next() % 4)
        let inbox = try PollableInbox<Int>(capacity: capacity)
        var model: [Int] = []
        var refused = 0
        var stopped = false
        for step in 0..<2_000 {
            switch random.next() % 16 {
            case 0..<8:
                let accepted = inbox.post(step)
                #expect(accepted == (model.count < capacity), "step \(step)")
                if model.count < capacity { model.append(step) } else { refused += 1 }
            case 8..<15:
                let expected = stopped || model.isEmpty ? nil : model.removeFirst()
                #expect(inbox.take() == expected, "step \(step)")
            default:
                if random.next() % 8 == 0 {
                    inbox.requestStop()
                    stopped = true
                }
            }
            #expect(inbox.depth == model.count, "step \(step)")
        }
        #expect(inbox.refusedCount == refused)
        #expect(inbox.isStopRequested == stopped)
        #expect(inbox.takeLeftovers() == model)
    }

    @Test("the descriptor polls readable exactly while a post or a stop is unseen by the loop")
    func readableWhilePosted() throws {
        let inbox = try PollableInbox<Int>(capacity: 4)
        #expect(!isReadable(inbox.pollDescriptor))
        inbox.post(1)
        #expect(isReadable(inbox.pollDescriptor))
        inbox.clearWakeUps()
        #expect(!isReadable(inbox.pollDescriptor))
        #expect(inbox.take() == 1)
        inbox.requestStop()
        #expect(isReadable(inbox.pollDescriptor))
    }

    @Test("a descriptor that cannot be made says what to raise")
    func aDescriptorThatCannotBeMadeSaysWhatToRaise() {
        let error = #expect(throws: WakeUpError.self) {
            try WakeUpSyscalls.faults.failing([.make: EMFILE]) { try PollableInbox<Int>(capacity: 4) }
        }
        #expect(error?.description == "cannot make the event loop's wake-up descriptor (eventfd): Too many open files; the process has all the descriptors it may: raise LimitNOFILE= in its unit (or ulimit -n)")
    }

    @Test("a failed wake-up still delivers the entry and the stop")
    func aFailedWakeUpStillDeliversTheEntry() throws {
        let inbox = try PollableInbox<Int>(capacity: 4)
        // The loop is awake already, or takes the entry at its next turn.
        WakeUpSyscalls.faults.arm(.ring(descriptor: inbox.pollDescriptor), errno: EAGAIN)
        #expect(inbox.post(7))
        #expect(WakeUpSyscalls.faults.pending(.ring(descriptor: inbox.pollDescriptor)) == 0, "the post tried to wake the loop")
        #expect(inbox.depth == 1)
        #expect(inbox.take() == 7)

        WakeUpSyscalls.faults.arm(.ring(descriptor: inbox.pollDescriptor), errno: EAGAIN)
        inbox.requestStop()
        #expect(WakeUpSyscalls.faults.pending(.ring(descriptor: inbox.pollDescriptor)) == 0)
        #expect(inbox.isStopRequested && inbox.take() == nil)
    }

    @Test("clearing the wake-ups empties the descriptor however many posts rang it")
    func clearingTheWakeUpsEmptiesTheDescriptor() throws {
        let inbox = try PollableInbox<Int>(capacity: 64)
        for value in 0..<inbox.capacity { inbox.post(value) }
        inbox.requestStop()
        #expect(isReadable(inbox.pollDescriptor))
        inbox.clearWakeUps()
        #expect(!isReadable(inbox.pollDescriptor))
        #expect(inbox.depth == inbox.capacity)
    }

    /// Posters, and entries each at most (or as many as fit in `StressDeadline.budget`), of the
    /// stress test below.
    static let stressPosters = 4
    static let stressEntriesPerPoster = 2_000

    /// The inbox's ring (its orderings are `InboxRing`'s) and its eventfd (`ringAlways()`: the
    /// kernel orders a post's write before the loop's `poll` that sees it readable).
    @Test("stress: posters on several threads and a loop asleep in poll: every accepted entry whole, taken once, each poster's in its own order")
    func stressPostersAndASleepingLoop() throws {
        let inbox = try PollableInbox<StressPayload>(capacity: 8)
        let posters = Self.stressPosters
        let perPoster = Self.stressEntriesPerPoster
        let taken = Guarded(StressTally(producers: posters))
        // Each poster's count, posted before the stop, once it has posted all it will.
        let posted = Guarded([Int](repeating: 0, count: posters))
        let done = DispatchSemaphore(value: 0)
        let loop = Thread {
            var tally = StressTally(producers: posters)
            while true {
                // No timeout: a lost wake-up sleeps here for ever, and the wait below fails.
                _ = waitReadable(inbox.pollDescriptor, milliseconds: -1)
                inbox.clearWakeUps()
                while let entry = inbox.take() { tally.take(entry) }
                // The stop comes after every poster's last entry, and `take` answers nil once
                // it is requested: what it left is in the leftovers.
                if inbox.isStopRequested { break }
            }
            for entry in inbox.takeLeftovers() { tally.take(entry) }
            taken.withLock { $0 = tally }
            done.signal()
        }
        loop.start()
        let giveUp = ContinuousClock.now + TestTimeouts.handOver
        let deadline = StressDeadline()
        DispatchQueue.concurrentPerform(iterations: posters) { poster in
            var count = 0
            for sequence in 0..<perPoster where !deadline.hasPassed {
                // Full: the loop is behind, or asleep past a lost wake-up (then give up).
                while !inbox.post(StressPayload(producer: poster, sequence: sequence)) && ContinuousClock.now < giveUp { usleep(50) }
                count += 1
            }
            posted.withLock { $0[poster] = count }
        }
        inbox.requestStop()
        try #require(done.wait(timeout: TestTimeouts.handOver.fromNow) == .success, "the loop missed a wake-up and sleeps on")
        let tally = taken.withLock { $0 }
        let counts = posted.withLock { $0 }
        #expect(tally.taken == counts.reduce(0, +))
        #expect(counts.reduce(0, +) > 0)  // a thread that starts after the deadline sends none
        #expect(tally.torn == 0 && tally.outOfOrder == 0 && tally.skipped == 0, "each entry whole, taken once, in its poster's order")
        #expect(tally.next == counts.map { UInt64($0) })
    }

    @Test("a machine's sends ring its wake-up only while the loop sleeps: no system call while it is awake")
    func machineRingsOnlyASleeper() throws {
        let wakeUp = try WakeUpDescriptor()
        let shared = ConcurrentMachine(StateMachine(table: try gateTable(), context: GateContext()), clock: ManualClock(), wakeUp: wakeUp)
        shared.start()
        for _ in 0..<1_000 {
            shared.send(.coin)
            shared.trySend(.push)
        }
        #expect(!isReadable(wakeUp.descriptor), "the loop was awake: nothing to wake")
        wakeUp.prepareToSleep()
        shared.send(.coin)
        #expect(isReadable(wakeUp.descriptor))
        wakeUp.clear()
        #expect(!isReadable(wakeUp.descriptor))
        shared.send(.push)
        #expect(!isReadable(wakeUp.descriptor))
    }

    @Test("a send from another thread wakes the machine's loop asleep in poll, which then sees the timer it started: 500 hand-overs")
    func sendWakesTheMachineLoop() throws {
        let clock = ManualClock()
        let inbox = try PollableInbox<Int>(capacity: 4)
        let shared = ConcurrentMachine(StateMachine(table: try gateTable(), context: GateContext()), clock: clock, wakeUp: inbox.wakeUp)
        shared.start()
        let rounds = 500
        let relocked = DispatchSemaphore(value: 0)
        // The loop sleeps until the machine's next deadline (none while locked), as an event
        // loop does, and relocks when the coin's timer is due.
        Thread {
            var handled = 0
            while handled < rounds {
                inbox.wakeUp.prepareToSleep()
                if let deadline = shared.nextDeadline {
                    clock.set(to: deadline)
                    shared.fireDueTimers()
                    handled += 1
                    relocked.signal()
                    continue
                }
                _ = waitReadable(inbox.pollDescriptor, milliseconds: -1)
                inbox.clearWakeUps()
            }
        }.start()
        for round in 1...rounds {
            shared.send(.coin)
            try #require(relocked.wait(timeout: Self.patience) == .success, "round \(round): the loop slept through the coin's timer")
            if round % 50 == 0 { Thread.sleep(forTimeInterval: 0.001) }
        }
        #expect(shared.state == .locked)
        #expect(shared.withMachine { $0.context.coins } == rounds)
    }

    /// Rounds of the stress test below at most (or as many as fit in `StressDeadline.budget`):
    /// each a send that starts a timer and the loop's turn that fires it.
    static let stressRounds = 2_000

    /// The store-buffer pattern of `WakeUpDescriptor` with `SharedMachine`, under contention: a
    /// sender's coin often finds the dispatch lock held (by a thread that reads the machine, or
    /// one that sends noise), so it goes through the inbox and is run by whichever thread holds
    /// the lock next, while the loop says it goes to sleep and reads the deadline. A coin whose
    /// timer the loop did not see, with a ring the loop did not hear, leaves the loop asleep in
    /// `poll` without a timeout: the round's wait fails.
    @Test("stress: a loop asleep in poll fires every timer a send started, while other threads send and read the machine")
    func stressSendersReadersAndASleepingLoop() throws {
        let clock = ManualClock()
        let wakeUp = try WakeUpDescriptor()
        let shared = ConcurrentMachine(StateMachine(table: try gateTable(), context: GateContext()), clock: clock, wakeUp: wakeUp)
        shared.start()
        let stop = Atomic<Bool>(false)
        let relocked = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let loop = Thread {
            while !stop.load(ordering: .acquiring) {
                wakeUp.prepareToSleep()
                if let deadline = shared.nextDeadline {
                    clock.set(to: Swift.max(deadline, clock.now()))
                    shared.fireDueTimers()
                    relocked.signal()
                    continue
                }
                // No timeout: a lost wake-up sleeps here until the test gives up and rings.
                _ = waitReadable(wakeUp.descriptor, milliseconds: -1)
                wakeUp.clear()
            }
            ended.signal()
        }
        // Noise: chimes (handled without touching the timer while unlocked, ignored while
        // locked) and reads, each holding the dispatch lock for a moment.
        let noise = Thread {
            while !stop.load(ordering: .acquiring) { shared.trySend(.chime) }
            ended.signal()
        }
        let reader = Thread {
            while !stop.load(ordering: .acquiring) { _ = shared.state }
            ended.signal()
        }
        loop.start()
        noise.start()
        reader.start()
        var fired = 0
        var slept = false
        let deadline = StressDeadline()
        for _ in 1...Self.stressRounds where !deadline.hasPassed {
            shared.send(.coin)
            guard relocked.wait(timeout: TestTimeouts.handOver.fromNow) == .success else {
                slept = true
                break
            }
            fired += 1
        }
        stop.store(true, ordering: .releasing)
        wakeUp.ringAlways()
        for _ in 0..<3 { _ = ended.wait(timeout: TestTimeouts.handOver.fromNow) }
        #expect(!slept, "round \(fired + 1): the loop slept past the timer the coin started")
        #expect(fired > 0)
        #expect(shared.withMachine { $0.context.coins } == fired + (slept ? 1 : 0))
    }

    private func isReadable(_ descriptor: Int32) -> Bool { waitReadable(descriptor, milliseconds: 0) }
}

/// Whether `descriptor` polls readable within `milliseconds` (-1: waits without limit).
private func waitReadable(_ descriptor: Int32, milliseconds: Int32) -> Bool {
    var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&waiting, 1, milliseconds) == 1
}
