import Dispatch
import Foundation
import Synchronization
import Testing
@testable import ControllerFSM

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

    @Test("a drainer that looks only at a ring's own counts (releasing stores, not sequentially consistent) still never misses a record published with ring(publishing:)")
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
                // releasing: only the publication the sleep loads makes that look safe.
                doorbell.sleep(nanoseconds: nil) { ring.pendingCount > 0 }
            }
            seen.store(last, ordering: .relaxed)
            done.signal()
        }.start()
        for index in 1...count {
            while ring.pendingCount >= ring.capacity { Thread.sleep(forTimeInterval: 0.000_1) }
            ring.record(index)
            doorbell.ring(publishing: UInt64(index))
            if index % 100 == 0 { Thread.sleep(forTimeInterval: 0.000_2) }
        }
        #expect(done.wait(timeout: .now() + Self.handOverPatience) == .success, "the drainer missed a publication and sleeps on")
        #expect(seen.load(ordering: .relaxed) == count)
        #expect(doorbell.publication == UInt64(count))
    }
}
