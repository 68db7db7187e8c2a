import ControllerFSM
import ControllerFSMSim
import ControllerTestSupport
import Testing

@Suite struct SimChipBounceTests {
    /// Raw edges of one bouncy pulse, read straight from the chip.
    func rawEdges(seed: UInt64, bounceEdges: Int = 4) throws -> [EdgeEvent] {
        let chip = SimChip(lines: ["COIN"], clock: ManualClock(), seed: seed)
        let inputs = try chip.requestInputs([InputLineSettings(offset: 0)], consumer: "t")
        chip.schedulePulse(line: 0, at: ms(100), width: .milliseconds(50), bounceEdges: bounceEdges, bounceWindow: .milliseconds(3))
        chip.advance(to: ms(1_000))
        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 64)
        defer { buffer.deallocate() }
        return Array(buffer[0..<(try inputs.readEdgeEvents(into: buffer))])
    }

    @Test func bouncyPulseTogglesWithinTheWindowAfterEachEdgeAndSettles() throws {
        let raw = try rawEdges(seed: 7)
        #expect(raw.count == 10)
        // Toggles alternate, so the kinds alternate and the line ends where the pulse says.
        #expect(raw.map(\.kind) == (0..<10).map { $0 % 2 == 0 ? .rising : .falling })
        #expect(raw[0].timestamp == ms(100))
        #expect(raw[1...4].allSatisfy { $0.timestamp > ms(100) && $0.timestamp < ms(103) })
        #expect(raw[5].timestamp == ms(150))
        #expect(raw[6...9].allSatisfy { $0.timestamp > ms(150) && $0.timestamp < ms(153) })
        #expect(zip(raw, raw.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    @Test func oddBounceCountsAreRoundedUpSoTheLineSettles() throws {
        let raw = try rawEdges(seed: 7, bounceEdges: 3)
        #expect(raw.count == 10)
        #expect(raw.last?.kind == .falling)
    }

    @Test func sameSeedGivesTheSameRawEdgesAndAnotherSeedDoesNot() throws {
        #expect(try rawEdges(seed: 42) == rawEdges(seed: 42))
        #expect(try rawEdges(seed: 42) != rawEdges(seed: 43))
    }

    @Test func pressBounceIsKeptInsideAShortPulse() throws {
        let chip = SimChip(lines: ["COIN"], clock: ManualClock(), seed: 3)
        let inputs = try chip.requestInputs([InputLineSettings(offset: 0)], consumer: "t")
        chip.schedulePulse(line: 0, at: ms(10), width: .milliseconds(1), bounceEdges: 6, bounceWindow: .milliseconds(3))
        chip.advance(to: ms(100))
        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 32)
        defer { buffer.deallocate() }
        let raw = buffer[0..<(try inputs.readEdgeEvents(into: buffer))]
        #expect(raw.count == 14)
        #expect(raw[0...6].allSatisfy { $0.timestamp < ms(11) })
        #expect(raw[7].timestamp == ms(11) && raw[7].kind == .falling)
    }

    @Test("a bouncy pulse through the debouncer gives exactly one press and one release", arguments: [false, true])
    func bouncyPulsesDebounceToOnePressAndOneRelease(activeLow: Bool) throws {
        let period = Duration.milliseconds(10)
        for seed in UInt64(1)...UInt64(PropertyCases.count(200)) {
            var shape = SplitMix64(seed: seed ^ 0xC0FFEE)
            let bounceEdges = Int(shape.next(below: 9))
            let window = Duration.microseconds(Int64(shape.next(below: 3_001)))
            let width = Duration.milliseconds(Int64(20 + shape.next(below: 181)))
            let start = us(Int64(1_000 + shape.next(below: 5_000)))

            let chip = SimChip(lines: [SimLine("COIN", activeLow: activeLow)], clock: ManualClock(), seed: seed)
            let settings = [InputLineSettings(offset: 0, activeLow: activeLow, debounce: period)]
            let inputs = try chip.requestInputs(settings, consumer: "t")
            var debouncer = EdgeDebouncer(settings: settings, initialLevels: [try inputs.readValue(at: 0)])
            chip.schedulePulse(line: 0, at: start, width: width, bounceEdges: bounceEdges, bounceWindow: window)

            let run = try runDebounced(chip, inputs, &debouncer, until: start + .seconds(1))
            let release = start + width
            let lastPressEdge = try #require(run.raw.last { $0.timestamp < release })
            let lastReleaseEdge = try #require(run.raw.last)
            #expect(run.raw.count == 2 + 2 * (bounceEdges + bounceEdges % 2), "seed \(seed)")
            #expect(
                run.accepted.map(Seen.init) == [
                    Seen(0, .rising, lastPressEdge.timestamp + period),
                    Seen(0, .falling, lastReleaseEdge.timestamp + period),
                ], "seed \(seed): raw \(run.raw.map(Seen.init))")
        }
    }

    @Test func pulsesOnSeveralLinesInterleaveAndEachDebouncesToOnePulse() throws {
        let chip = SimChip(lines: ["COIN", "PUSH", "SERVICE"], clock: ManualClock(), seed: 9)
        let settings = (0..<3).map { InputLineSettings(offset: GPIOLineOffset(UInt32($0)), debounce: .milliseconds(10)) }
        let inputs = try chip.requestInputs(settings, consumer: "t")
        var debouncer = EdgeDebouncer(settings: settings)
        for line in 0..<3 {
            chip.schedulePulse(
                line: GPIOLineOffset(UInt32(line)), at: ms(Int64(100 + 7 * line)), width: .milliseconds(40),
                bounceEdges: 4, bounceWindow: .milliseconds(3))
        }
        let run = try runDebounced(chip, inputs, &debouncer, until: ms(1_000))
        #expect(run.raw.count == 30)
        #expect(run.accepted.map(\.lineIndex) == [0, 1, 2, 0, 1, 2])
        #expect(run.accepted.map(\.kind) == [.rising, .rising, .rising, .falling, .falling, .falling])
        #expect(zip(run.accepted, run.accepted.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
    }

    @Test func splitMix64MatchesTheReferenceSequence() {
        var generator = SplitMix64(seed: 0)
        #expect([generator.next(), generator.next(), generator.next()] == [
            0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F,
        ])
        var bounded = SplitMix64(seed: 5)
        #expect((0..<1_000).allSatisfy { _ in bounded.next(below: 7) < 7 })
        #expect((0..<1_000).allSatisfy { _ in (0..<1).contains(bounded.nextUnitInterval()) })
    }
}
