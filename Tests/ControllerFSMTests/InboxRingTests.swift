@testable import ControllerFSM
import Dispatch
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

    @Test("producers on several threads: every entry is taken once, each producer's in its own order")
    func concurrentProducers() {
        let ring = InboxRing<Int>(capacity: 8)
        let producers = 4
        let perProducer = 10_000
        struct Seen {
            var last: [Int]
            var taken = 0
            var outOfOrder = 0
        }
        // Handed back through a Mutex, so the thread sanitizer sees the consumer's writes ordered
        // before the test reads them.
        let result = Mutex(Seen(last: []))
        let consumer = DispatchGroup()
        DispatchQueue.global().async(group: consumer) {
            var seen = Seen(last: [Int](repeating: -1, count: producers))
            while seen.taken < producers * perProducer {
                guard let (entry, _) = ring.take() else { continue }
                let (producer, sequence) = entry.quotientAndRemainder(dividingBy: perProducer)
                if sequence != seen.last[producer] + 1 { seen.outOfOrder += 1 }
                seen.last[producer] = sequence
                seen.taken += 1
            }
            result.withLock { $0 = seen }
        }
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for sequence in 0..<perProducer {
                while ring.push(producer * perProducer + sequence) == nil {}
            }
        }
        consumer.wait()
        let seen = result.withLock { $0 }
        #expect(seen.taken == producers * perProducer)
        #expect(seen.outOfOrder == 0)
        #expect(seen.last == [Int](repeating: perProducer - 1, count: producers))
    }
}
