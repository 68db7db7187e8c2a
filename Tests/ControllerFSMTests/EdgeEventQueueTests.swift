import ControllerFSM
import Testing

@Suite struct EdgeEventQueueTests {
    @Test func keepsEventsInArrivalOrder() {
        var queue = EdgeEventQueue(capacity: 3)
        queue.append(edge(0, .rising, ms(1)))
        queue.append(edge(1, .falling, ms(2)))
        #expect(queue.count == 2)
        #expect(queue.first == edge(0, .rising, ms(1)))
        #expect(queue.popFirst() == edge(0, .rising, ms(1)))
        queue.append(edge(2, .rising, ms(3)))
        queue.append(edge(0, .falling, ms(4)))
        #expect(queue.isFull)
        #expect([queue.popFirst(), queue.popFirst(), queue.popFirst(), queue.popFirst()] == [
            edge(1, .falling, ms(2)), edge(2, .rising, ms(3)), edge(0, .falling, ms(4)), nil,
        ])
        #expect(queue.droppedCount == 0)
    }

    @Test func overflowDropsTheOldestAndCountsIt() {
        var queue = EdgeEventQueue(capacity: 2)
        for time in 1...5 { queue.append(edge(0, time % 2 == 1 ? .rising : .falling, ms(Int64(time)))) }
        #expect(queue.droppedCount == 3)
        #expect(queue.count == 2)
        #expect(queue.popFirst()?.timestamp == ms(4))
        #expect(queue.popFirst()?.timestamp == ms(5))
    }

    @Test func popsIntoACallerBuffer() {
        var queue = EdgeEventQueue(capacity: 4)
        for time in 1...3 { queue.append(edge(0, .rising, ms(Int64(time)))) }
        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 2)
        defer { buffer.deallocate() }
        #expect(queue.pop(into: buffer) == 2)
        #expect(buffer.map(\.timestamp) == [ms(1), ms(2)])
        #expect(queue.pop(into: buffer) == 1)
        #expect(buffer[0].timestamp == ms(3))
        #expect(queue.pop(into: buffer) == 0)
    }
}
