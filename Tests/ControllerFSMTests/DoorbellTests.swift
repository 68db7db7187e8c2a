import Dispatch
import Foundation
import Synchronization
import Testing
@testable import ControllerFSM
import ControllerTestSupport

/// The doorbell idle drainers sleep on: free for the producer while nobody sleeps, and a
/// publication is never left unseen by a drainer asleep.
@Suite("Doorbell")
struct DoorbellTests {
    /// A sleep without a timeout never returns by itself, so any bound catches one that slept
    /// with work pending; this is room for a thread descheduled on a loaded machine under a
    /// sanitizer (CI runs the ASan and TSan test runs at once on 2 cores).
    static let returnsAtOnce: Duration = .seconds(10)
    /// A missed ring sleeps for ever; 2,000 hand-overs take milliseconds (seconds under a
    /// sanitizer on a loaded machine): a minute is room for both.
    static let handOverPatience: Double = 60

    @Test("rings while no drainer sleeps make no wake (no system call on the producer's path)")
    func noSleeperNoWake() {
        let doorbell = Doorbell()
        for _ in 0..<10_000 { doorbell.ring() }
        #expect(doorbell.wakes == 0)
    }

    @Test("a drainer with work does not sleep at all")
    func workPendingReturnsAtOnce() {
        let doorbell = Doorbell()
        let clock = ContinuousClock()
        let start = clock.now
        doorbell.sleep(nanoseconds: nil) { true }
        #expect(clock.now - start < Self.returnsAtOnce)
    }

    @Test("every publication wakes a drainer asleep: a producer and a drainer hand over 2,000 items one at a time")
    func handOver() {
        let doorbell = Doorbell()
        let published = Atomic<Int>(0)
        let count = 2_000
        let done = DispatchSemaphore(value: 0)
        let seen = Atomic<Int>(0)
        Thread {
            var last = 0
            while last < count {
                let now = published.load(ordering: .sequentiallyConsistent)
                if now != last {
                    last = now
                    continue
                }
                // No timeout: a lost wake-up hangs here, and the test fails on its wait below.
                doorbell.sleep(nanoseconds: nil) { published.load(ordering: .sequentiallyConsistent) != last }
            }
            seen.store(last, ordering: .relaxed)
            done.signal()
        }.start()
        for index in 1...count {
            published.store(index, ordering: .sequentiallyConsistent)
            doorbell.ring()
            if index % 100 == 0 { Thread.sleep(forTimeInterval: 0.000_2) }
        }
        #expect(done.wait(timeout: .now() + Self.handOverPatience) == .success, "the drainer missed a ring and sleeps on")
        #expect(seen.load(ordering: .relaxed) == count)
    }

    /// Rounds of the stress test below at most (or as many as fit in `StressDeadline.budget`):
    /// each a record in both rings, a ring of the doorbell and both drainers woken.
    static let stressRounds = 500

    /// As the daemon uses it: the controller writes its rings (each publishing with a releasing
    /// store of its head, not a sequentially consistent one) and rings once; two drainers (the
    /// reporter and the store's recorder) each sleep on the doorbell while their own ring is
    /// empty, and look with the ring's acquiring loads (`pendingCount`). The fences in `ring()`
    /// and `sleep` are what keep a drainer from sleeping past a record: without them the
    /// producer's look at the sleepers and the drainer's look at the ring may both read old
    /// values. The producer hands over one record at a time and waits for both drainers, so a
    /// drainer asleep past its record fails the round's wait.
    @Test("stress: two drainers asleep on the doorbell, each on its own ring published with releasing stores, see every record")
    func stressTwoDrainersOnReleasedRings() {
        let doorbell = Doorbell()
        let rings = [RecordRing<StressPayload>(capacity: 4), RecordRing<StressPayload>(capacity: 4)]
        let stop = Atomic<Bool>(false)
        let drained = DispatchSemaphore(value: 0)
        let ended = DispatchGroup()
        let tallies = Guarded([StressTally](repeating: StressTally(producers: 1), count: rings.count))
        for (index, ring) in rings.enumerated() {
            DispatchQueue.global().async(group: ended) {
                var tally = StressTally(producers: 1)
                while !stop.load(ordering: .acquiring) {
                    if ring.drain({ tally.take($0) }) > 0 {
                        drained.signal()
                        continue
                    }
                    // No timeout: a lost wake-up sleeps here until the test gives up and rings.
                    doorbell.sleep(nanoseconds: nil) { ring.pendingCount > 0 || stop.load(ordering: .acquiring) }
                }
                tallies.withLock { $0[index] = tally }
            }
        }
        var handedOver = 0
        var stalled = false
        let deadline = StressDeadline()
        rounds: for round in 0..<Self.stressRounds where !deadline.hasPassed {
            for ring in rings { ring.record(StressPayload(producer: 0, sequence: round)) }
            doorbell.ring()
            for _ in rings {
                guard drained.wait(timeout: TestTimeouts.handOver.fromNow) == .success else {
                    stalled = true
                    break rounds
                }
            }
            handedOver += 1
        }
        stop.store(true, ordering: .releasing)
        doorbell.ringAlways()
        #expect(ended.wait(timeout: TestTimeouts.handOver.fromNow) == .success)
        #expect(!stalled, "round \(handedOver): a drainer slept past its record")
        #expect(handedOver > 0)
        for tally in tallies.withLock({ $0 }) {
            #expect(tally.taken == handedOver)
            #expect(tally.torn == 0 && tally.outOfOrder == 0 && tally.skipped == 0)
        }
        #expect(rings.allSatisfy { $0.lostCount == 0 })
    }

    @Test("a drainer that looks only at a ring's own counts (releasing stores, not sequentially consistent) still never misses a record: the fences do it")
    func handOverThroughARing() {
        let doorbell = Doorbell()
        let ring = RecordRing<Int>(capacity: 64)
        let count = 2_000
        let done = DispatchSemaphore(value: 0)
        let seen = Atomic<Int>(0)
        Thread {
            var last = 0
            while last < count {
                if ring.drain({ last = $0 }) > 0 { continue }
                // No timeout, and `hasWork` reads the ring's head, which the producer stores
                // releasing: only the fences in `ring()` and `sleep` make that look safe.
                doorbell.sleep(nanoseconds: nil) { ring.pendingCount > 0 }
            }
            seen.store(last, ordering: .relaxed)
            done.signal()
        }.start()
        for index in 1...count {
            while ring.pendingCount >= ring.capacity { Thread.sleep(forTimeInterval: 0.000_1) }
            ring.record(index)
            doorbell.ring()
            if index % 100 == 0 { Thread.sleep(forTimeInterval: 0.000_2) }
        }
        #expect(done.wait(timeout: .now() + Self.handOverPatience) == .success, "the drainer missed a publication and sleeps on")
        #expect(seen.load(ordering: .relaxed) == count)
    }
}
