@testable import ControllerFSM
import ControllerTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite("Inbox ring")
struct InboxRingTests {
    @Test("entries come out in the order they went in, with their positions as tickets")
    func firstInFirstOut() {
        let ring = InboxRing<Int>(capacity: 4)
        #expect(ring.push(10) == 0)
        #expect(ring.push(11) == 1)
        #expect(ring.take()?.entry == 10)
        #expect(ring.push(12) == 2)
        let taken = [ring.take(), ring.take()].map { $0.map { [$0.entry, $0.position] } }
        #expect(taken == [[11, 1], [12, 2]])
        #expect(ring.take() == nil)
        #expect(!ring.hasPublishedEntry)
    }

    @Test("a full ring refuses and takes again once a slot is freed; capacity rounds up to a power of two")
    func fullRing() {
        let ring = InboxRing<Int>(capacity: 3)
        #expect(ring.capacity == 4)
        for value in 0..<4 { #expect(ring.push(value) != nil) }
        #expect(ring.push(4) == nil)
        #expect(ring.take()?.entry == 0)
        #expect(ring.push(4) == 4)
        #expect(ring.push(5) == nil)
        #expect((0..<4).compactMap { _ in ring.take()?.entry } == [1, 2, 3, 4])
    }

    @Test("positions that run past Int.max wrap without losing or reordering an entry")
    func positionsWrap() {
        let ring = InboxRing<Int>(capacity: 4, firstPosition: Int.max - 5)
        var expected = 0
        var next = 0
        for _ in 0..<10 {
            while ring.push(next) != nil { next += 1 }
            #expect(next - expected == 4, "a full lap holds exactly the capacity")
            while let (entry, _) = ring.take() {
                #expect(entry == expected)
                expected += 1
            }
        }
        #expect(expected == 40)
    }

    /// Producers, and entries each at most (or as many as fit in `StressDeadline.budget`), of
    /// the stress test below: tens of milliseconds in a plain run.
    static let stressProducers = 4
    static let stressEntriesPerProducer = 5_000

    /// Vyukov's orderings as arm64 needs them: an entry's payload before the slot's sequence
    /// that publishes it (the consumer's acquiring load), the consumer's move out of a slot
    /// before the sequence that hands it to the next lap's producer (whose acquiring load comes
    /// before its write). A small ring, starting just before positions wrap, keeps every slot
    /// reused as soon as it is freed.
    @Test("stress: producers on several threads: every entry whole, taken once, each producer's in its own order")
    func stressConcurrentProducers() {
        let ring = InboxRing<StressPayload>(capacity: 8, firstPosition: Int.max - 1_000)
        let producers = Self.stressProducers
        let perProducer = Self.stressEntriesPerProducer
        // Handed back through `Guarded`, whose lock word ThreadSanitizer sees (it cannot see the
        // futex under the standard library's `Mutex`, and reports the hand-over as a race).
        let result = Guarded(StressTally(producers: producers))
        let pushed = Guarded([Int](repeating: 0, count: producers))
        let producing = Atomic<Int>(producers)
        let consumer = DispatchGroup()
        DispatchQueue.global().async(group: consumer) {
            var tally = StressTally(producers: producers)
            let giveUp = ContinuousClock.now + TestTimeouts.handOver
            while ContinuousClock.now < giveUp {
                // Read before the take: once every producer is done, an empty ring is the end.
                let done = producing.load(ordering: .acquiring) == 0
                guard let (entry, _) = ring.take() else {
                    if done { break }
                    sched_yield()  // two cores: let a producer in
                    continue
                }
                tally.take(entry)
            }
            result.withLock { $0 = tally }
        }
        let giveUp = ContinuousClock.now + TestTimeouts.handOver
        let deadline = StressDeadline()
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            var count = 0
            for sequence in 0..<perProducer where !deadline.hasPassed {
                // Full: the consumer is behind (or gave up: then so does this producer).
                while ring.push(StressPayload(producer: producer, sequence: sequence)) == nil {
                    guard ContinuousClock.now < giveUp else { break }
                    sched_yield()
                }
                count += 1
            }
            pushed.withLock { $0[producer] = count }
            producing.subtract(1, ordering: .releasing)
        }
        consumer.wait()
        let tally = result.withLock { $0 }
        let counts = pushed.withLock { $0 }
        #expect(tally.taken == counts.reduce(0, +))
        #expect(counts.reduce(0, +) > 0)  // a thread that starts after the deadline sends none
        #expect(tally.torn == 0, "entries read before they were whole, or while overwritten")
        #expect(tally.outOfOrder == 0, "entries taken twice, or out of their producer's order")
        #expect(tally.skipped == 0, "an inbox loses nothing it accepted")
        #expect(tally.next == counts.map { UInt64($0) })
        #expect(ring.take() == nil)
    }
}
