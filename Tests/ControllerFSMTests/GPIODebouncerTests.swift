import ControllerFSM
import Testing

@Suite struct GPIODebouncerTests {
    let period = Duration.milliseconds(10)

    @Test func bounceOnAPressGivesOneEdgeAPeriodAfterTheLastBounce() {
        var debouncer = EdgeDebouncer(periods: [period])
        for (kind, time) in [(EdgeKind.rising, us(0)), (.falling, us(700)), (.rising, us(1_500)),
                             (.falling, us(2_100)), (.rising, us(2_900))] {
            debouncer.feed(edge(0, kind, time))
        }
        #expect(debouncer.nextDeadline == us(12_900))
        #expect(debouncer.drain(now: us(12_899)).isEmpty)
        #expect(debouncer.drain(now: us(12_900)).map(Seen.init) == [Seen(0, .rising, us(12_900))])
        #expect(debouncer.level(ofLine: 0))
        #expect(debouncer.nextDeadline == nil)
    }

    @Test func glitchShorterThanThePeriodIsIgnored() {
        var debouncer = EdgeDebouncer(periods: [period])
        debouncer.feed(edge(0, .rising, ms(100)))
        debouncer.feed(edge(0, .falling, ms(109)))
        #expect(debouncer.nextDeadline == nil)
        #expect(debouncer.drain(now: ms(500)).isEmpty)
        #expect(!debouncer.level(ofLine: 0))
    }

    @Test func longBouncyPulseGivesExactlyOneActiveAndOneInactiveEdge() {
        var debouncer = EdgeDebouncer(periods: [period])
        let raw: [(EdgeKind, MachineInstant)] = [
            (.rising, ms(0)), (.falling, us(400)), (.rising, us(900)), (.falling, us(1_300)), (.rising, us(2_000)),
            (.falling, ms(50)), (.rising, us(50_500)), (.falling, us(51_000)),
        ]
        var accepted: [EdgeEvent] = []
        for (kind, time) in raw {
            accepted += debouncer.drain(now: time)
            debouncer.feed(edge(0, kind, time))
        }
        accepted += debouncer.drain(now: ms(200))
        #expect(accepted.map(Seen.init) == [Seen(0, .rising, us(12_000)), Seen(0, .falling, us(61_000))])
        #expect(accepted.map(\.sequence) == [0, 1])
    }

    @Test func edgesFedInOneBatchComeOutInTimeOrderWithTheirAcceptanceTimes() {
        // The whole pulse is read in one batch before anything is polled: the press must still
        // be stamped when it was accepted, not when the batch was read.
        var debouncer = EdgeDebouncer(periods: [period])
        debouncer.feed(edge(0, .rising, ms(0)))
        debouncer.feed(edge(0, .falling, ms(1)))
        debouncer.feed(edge(0, .rising, ms(2)))
        debouncer.feed(edge(0, .falling, ms(40)))
        #expect(debouncer.nextDeadline == ms(12))
        #expect(debouncer.drain(now: ms(45)).map(Seen.init) == [Seen(0, .rising, ms(12))])
        #expect(debouncer.drain(now: ms(50)).map(Seen.init) == [Seen(0, .falling, ms(50))])
    }

    @Test func zeroPeriodPassesEdgesStraightThrough() {
        var debouncer = EdgeDebouncer(periods: [.zero])
        let raw = [edge(0, .rising, us(10)), edge(0, .falling, us(11)), edge(0, .rising, us(30))]
        for event in raw { debouncer.feed(event) }
        #expect(debouncer.nextDeadline == us(10))
        #expect(debouncer.drain(now: us(30)).map(Seen.init) == raw.map(Seen.init))
        #expect(debouncer.level(ofLine: 0))
    }

    @Test func linesAreDebouncedIndependentlyAndMergedInTimeOrder() {
        var debouncer = EdgeDebouncer(periods: [.milliseconds(10), .milliseconds(3), .zero])
        let raw = [
            edge(0, .rising, ms(0)),
            edge(1, .rising, ms(1)),
            edge(0, .falling, ms(2)),  // line 0 bounces
            edge(1, .falling, ms(2)),  // line 1 glitch: 1 ms < 3 ms
            edge(0, .rising, ms(3)),
            edge(2, .rising, ms(5)),  // no debounce
            edge(1, .rising, ms(6)),
            edge(2, .falling, ms(20)),
            edge(1, .falling, ms(30)),
        ]
        for event in raw { debouncer.feed(event) }
        let accepted = debouncer.drain(now: ms(100))
        #expect(accepted.map(Seen.init) == [
            Seen(2, .rising, ms(5)),
            Seen(1, .rising, ms(9)),
            Seen(0, .rising, ms(13)),
            Seen(2, .falling, ms(20)),
            Seen(1, .falling, ms(33)),
        ])
        #expect(accepted.map(\.sequence) == [0, 1, 2, 3, 4])
    }

    @Test func initialLevelsDecideWhichChangesCount() {
        var debouncer = EdgeDebouncer(periods: [period, period], initialLevels: [true, false])
        #expect(debouncer.level(ofLine: 0) && !debouncer.level(ofLine: 1))
        debouncer.feed(edge(0, .rising, ms(0)))  // already active: nothing to accept
        #expect(debouncer.nextDeadline == nil)
        debouncer.feed(edge(0, .falling, ms(1)))
        #expect(debouncer.drain(now: ms(20)).map(Seen.init) == [Seen(0, .falling, ms(11))])

        debouncer.setLevel(true, ofLine: 1)
        debouncer.feed(edge(1, .falling, ms(30)))
        debouncer.setLevel(false, ofLine: 1)  // a change in progress is forgotten
        #expect(debouncer.nextDeadline == nil)
    }

    @Test func pollFillsTheBufferAndKeepsTheRestForLater() {
        var debouncer = EdgeDebouncer(periods: [.zero, .zero, .zero])
        for line in 0..<3 { debouncer.feed(edge(line, .rising, ms(Int64(line)))) }
        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 2)
        defer { buffer.deallocate() }
        #expect(debouncer.poll(now: ms(5), into: buffer) == 2)
        #expect(buffer.map(\.lineIndex) == [0, 1])
        #expect(debouncer.poll(now: ms(5), into: buffer) == 1)
        #expect(buffer[0].lineIndex == 2)
        #expect(debouncer.poll(now: ms(5), into: buffer) == 0)
    }

    @Test func usesEachLinesDebounceFromItsSettings() {
        var debouncer = EdgeDebouncer(settings: [
            InputLineSettings(offset: 4, debounce: .milliseconds(5)),
            InputLineSettings(offset: 9, activeLow: true, debounce: .milliseconds(20)),
        ])
        debouncer.feed(edge(0, .rising, ms(0)))
        debouncer.feed(edge(1, .rising, ms(0)))
        #expect(debouncer.drain(now: ms(30)).map(Seen.init) == [Seen(0, .rising, ms(5)), Seen(1, .rising, ms(20))])
    }

    @Test func acceptedEdgesBeyondCapacityAreDroppedAndCounted() {
        var debouncer = EdgeDebouncer(periods: [.zero], capacity: 2)
        for time in 0..<5 { debouncer.feed(edge(0, time % 2 == 0 ? .rising : .falling, ms(Int64(time)))) }
        #expect(debouncer.droppedCount == 3)
        #expect(debouncer.drain(now: ms(10)).map(\.timestamp) == [ms(3), ms(4)])
    }
}
