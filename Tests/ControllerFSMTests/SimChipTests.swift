import ControllerFSM
import ControllerFSMSim
import Testing

@Suite struct SimChipTests {
    let clock = ManualClock()

    func makeChip(
        _ lines: [SimLine] = ["COIN", "PUSH", "LOCK", "ALARM"], perLine: Int = 16,
        sink: @escaping @Sendable (SimOutputChange) -> Void = { _ in }
    ) -> SimChip {
        SimChip(
            name: "simchip0", label: "test-sim", lines: lines, clock: clock,
            eventBufferCapacityPerLine: perLine, outputSink: sink)
    }

    @Test func describesItselfAndFindsLinesByName() throws {
        let chip = makeChip()
        #expect(chip.info == GPIOChipInfo(name: "simchip0", label: "test-sim", path: "sim:simchip0", lineCount: 4))
        #expect(try chip.offset(ofLineNamed: "LOCK") == 2)
        let error = #expect(throws: GPIOError.self) { try chip.offset(ofLineNamed: "GPIO99") }
        #expect(error == .lineNotFound(chip: "simchip0", name: "GPIO99", available: ["COIN", "PUSH", "LOCK", "ALARM"]))
        #expect(error?.description.contains(#""COIN", "PUSH", "LOCK", "ALARM""#) == true)
        // The port knows no program: it names gpioinfo; the daemon that met the error names its
        // own `lines` command.
        #expect(error?.description.contains("(`gpioinfo simchip0` shows them)") == true)
        #expect(error?.naming(program: "turnstiled").description.contains("(`turnstiled lines --chip simchip0` shows them)") == true)
    }

    @Test func deliversRawEdgesWithTheirVirtualTimesAndSequenceNumbers() throws {
        let chip = makeChip()
        let inputs = try chip.requestInputs(
            [InputLineSettings(offset: 0), InputLineSettings(offset: 1, debounce: .milliseconds(10))], consumer: "test")
        #expect(!inputs.edgesAreDebounced)
        #expect(inputs.pollDescriptor == nil)
        chip.schedulePulse(line: 1, at: ms(100), width: .milliseconds(30))
        chip.scheduleLevel(line: 0, at: ms(120), active: true)
        #expect(chip.nextEventTime == ms(100))
        #expect(!inputs.hasPendingEdgeEvents)

        chip.advance(to: ms(99))
        #expect(!inputs.hasPendingEdgeEvents)
        #expect(clock.now() == ms(99))
        chip.advance(to: ms(125))
        #expect(clock.now() == ms(125))
        #expect(inputs.hasPendingEdgeEvents)
        #expect(try inputs.readValue(at: 0) && inputs.readValue(at: 1))
        chip.advance(to: ms(200))
        #expect(chip.nextEventTime == nil)

        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 8)
        defer { buffer.deallocate() }
        let count = try inputs.readEdgeEvents(into: buffer)
        #expect(buffer[0..<count].map(Seen.init) == [
            Seen(1, .rising, ms(100)), Seen(0, .rising, ms(120)), Seen(1, .falling, ms(130)),
        ])
        #expect(buffer[0..<count].map(\.sequence) == [0, 1, 2])
        #expect(try inputs.readEdgeEvents(into: buffer) == 0)
        #expect(try inputs.readValue(at: 0) && !inputs.readValue(at: 1))
    }

    @Test func scheduledLevelHoldsTheLineAndRepeatsAreNotEdges() throws {
        let chip = makeChip()
        let inputs = try chip.requestInputs([InputLineSettings(offset: 3)], consumer: "test")
        chip.scheduleLevel(line: 3, at: ms(10), active: true)
        chip.scheduleLevel(line: 3, at: ms(20), active: true)
        chip.advance(to: ms(1_000))
        #expect(try inputs.readValue(at: 0))
        var events: [EdgeEvent] = []
        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        events += buffer[0..<(try inputs.readEdgeEvents(into: buffer))]
        #expect(events.map(Seen.init) == [Seen(0, .rising, ms(10))])
    }

    @Test func activeLowInvertsInputReadsAndEdges() throws {
        // A sensor that pulls its line low when a coin passes, read with and without active_low.
        let chip = makeChip([SimLine("COIN", activeLow: true), SimLine("SPARE", activeLow: true)])
        let matched = try chip.requestInputs([InputLineSettings(offset: 0, activeLow: true)], consumer: "a")
        let plain = try chip.requestInputs([InputLineSettings(offset: 1, activeLow: false)], consumer: "b")
        #expect(chip.isHigh(0) && chip.isHigh(1))
        #expect(try !matched.readValue(at: 0))
        #expect(try plain.readValue(at: 0))

        chip.schedulePulse(line: 0, at: ms(10), width: .milliseconds(50))
        chip.schedulePulse(line: 1, at: ms(10), width: .milliseconds(50))
        chip.advance(to: ms(20))
        #expect(!chip.isHigh(0) && !chip.isHigh(1))
        #expect(try matched.readValue(at: 0))
        #expect(try !plain.readValue(at: 0))
        chip.advance(to: ms(100))

        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        #expect(try matched.readEdgeEvents(into: buffer) == 2)
        #expect(buffer[0..<2].map(\.kind) == [.rising, .falling])
        #expect(try plain.readEdgeEvents(into: buffer) == 2)
        #expect(buffer[0..<2].map(\.kind) == [.falling, .rising])
    }

    @Test func activeLowInvertsOutputsAndTheSinkSeesBothLevels() throws {
        let recorder = OutputRecorder()
        let chip = makeChip(sink: recorder.sink)
        let outputs = try chip.requestOutputs(
            [OutputLineSettings(offset: 2, activeLow: true, initialValue: true), OutputLineSettings(offset: 3)],
            consumer: "test")
        #expect(chip.outputValue(of: 2) == true && !chip.isHigh(2))
        #expect(chip.outputValue(of: 3) == false && !chip.isHigh(3))
        try outputs.write(false, at: 0)
        #expect(chip.outputValue(of: 2) == false && chip.isHigh(2))
        #expect(recorder.all.map { [$0.value, $0.isHigh] } == [[true, false], [false, false], [false, true]])
        #expect(chip.outputValue(of: 0) == nil)
    }

    @Test func outputSinkSeesEveryChangeWithItsTime() throws {
        let recorder = OutputRecorder()
        let chip = makeChip(sink: recorder.sink)
        clock.set(to: ms(5))
        let outputs = try chip.requestOutputs(
            [OutputLineSettings(offset: 2, initialValue: true), OutputLineSettings(offset: 3)], consumer: "test")
        chip.advance(to: ms(10))
        try outputs.write(false, at: 0)
        try outputs.write(false, at: 0)  // unchanged: not reported
        chip.advance(to: ms(20))
        try outputs.write(true, at: 1)
        try outputs.write(true, at: 0)

        let seen = recorder.all.map { "\($0.time.nanoseconds / 1_000_000) \($0.offset) \($0.name ?? "-") \($0.value ? 1 : 0)" }
        #expect(seen == ["5 2 LOCK 1", "5 3 ALARM 0", "10 2 LOCK 0", "20 3 ALARM 1", "20 2 LOCK 1"])
        #expect(chip.outputValue(of: 2) == true && chip.outputValue(of: 3) == true)
    }

    @Test func aLineHeldByOneConsumerIsRefusedToAnother() throws {
        let chip = makeChip()
        let first = try chip.requestInputs([InputLineSettings(offset: 1)], consumer: "turnstiled")
        #expect(chip.consumer(of: 1) == "turnstiled")
        for attempt in [
            { _ = try chip.requestInputs([InputLineSettings(offset: 0), InputLineSettings(offset: 1)], consumer: "other") },
            { _ = try chip.requestOutputs([OutputLineSettings(offset: 1)], consumer: "other") },
        ] as [() throws -> Void] {
            let error = #expect(throws: GPIOError.self) { try attempt() }
            #expect(error == .lineBusy(chip: "simchip0", line: GPIOLineID(offset: 1, name: "PUSH"), consumer: "turnstiled"))
            let message = error?.description ?? ""
            #expect(message.contains("line 1 \"PUSH\"") && message.contains("simchip0") && message.contains("\"turnstiled\""))
        }
        // A refused request takes nothing: line 0 is still free.
        #expect(chip.consumer(of: 0) == nil)
        first.release()
        first.release()
        #expect(chip.consumer(of: 1) == nil)
        let second = try chip.requestOutputs([OutputLineSettings(offset: 1)], consumer: "other")
        #expect(chip.consumer(of: 1) == "other")
        withExtendedLifetime(second) {}
    }

    @Test func droppingTheLastReferenceReleasesTheLines() throws {
        let chip = makeChip()
        do {
            let inputs = try chip.requestInputs([InputLineSettings(offset: 0)], consumer: "scoped")
            #expect(inputs.offsets == [0])
            #expect(chip.consumer(of: 0) == "scoped")
        }
        #expect(chip.consumer(of: 0) == nil)
    }

    @Test func malformedRequestsAreRefusedWithTheReason() {
        let chip = makeChip()
        #expect(throws: GPIOError.offsetOutOfRange(chip: "simchip0", offset: 4, lineCount: 4)) {
            try chip.requestInputs([InputLineSettings(offset: 4)], consumer: "x")
        }
        #expect(throws: GPIOError.invalidRequest(chip: "simchip0", line: nil, reason: "no lines were given")) {
            try chip.requestOutputs([], consumer: "x")
        }
        let twice = #expect(throws: GPIOError.self) {
            try chip.requestOutputs([OutputLineSettings(offset: 2), OutputLineSettings(offset: 2)], consumer: "x")
        }
        #expect(twice?.description == "invalid request for line 2 \"LOCK\" of GPIO chip simchip0: the line is listed twice.")
        #expect(throws: GPIOError.self) {
            try chip.requestInputs([InputLineSettings(offset: 0, debounce: .milliseconds(-1))], consumer: "x")
        }
        #expect((0..<4).allSatisfy { chip.consumer(of: GPIOLineOffset(UInt32($0))) == nil })
    }

    @Test func usingAReleasedRequestSaysSo() throws {
        let chip = makeChip()
        let inputs = try chip.requestInputs([InputLineSettings(offset: 0)], consumer: "old")
        let outputs = try chip.requestOutputs([OutputLineSettings(offset: 2)], consumer: "old")
        inputs.release()
        outputs.release()
        // A new holder of the same lines must not be reachable through the old requests.
        let newInputs = try chip.requestInputs([InputLineSettings(offset: 0)], consumer: "new")
        let newOutputs = try chip.requestOutputs([OutputLineSettings(offset: 2)], consumer: "new")
        defer { withExtendedLifetime(newOutputs) {} }
        #expect(throws: GPIOError.requestReleased(chip: "simchip0", consumer: "old")) { try inputs.readValue(at: 0) }
        #expect(throws: GPIOError.requestReleased(chip: "simchip0", consumer: "old")) { try outputs.write(true, at: 0) }
        #expect(chip.outputValue(of: 2) == false)
        #expect(!inputs.hasPendingEdgeEvents)
        chip.scheduleLevel(line: 0, at: ms(1), active: true)
        chip.advance(to: ms(2))
        #expect(newInputs.hasPendingEdgeEvents && !inputs.hasPendingEdgeEvents)
        #expect(throws: GPIOError.self) { try inputs.readValue(at: 1) }
    }

    @Test func eventBufferOverflowDropsTheOldestAndCountsIt() throws {
        let chip = makeChip(perLine: 2)
        let inputs = try chip.requestInputs([InputLineSettings(offset: 0), InputLineSettings(offset: 1)], consumer: "t")
        #expect(inputs.eventBufferCapacity == 4)
        for pulse in 0..<3 {
            chip.schedulePulse(line: 0, at: ms(Int64(10 * pulse)), width: .milliseconds(5))
        }
        chip.advance(to: ms(100))
        #expect(inputs.droppedEdgeEventCount == 2)
        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 8)
        defer { buffer.deallocate() }
        let count = try inputs.readEdgeEvents(into: buffer)
        #expect(count == 4)
        // The sequence numbers show which were lost.
        #expect(buffer[0..<count].map(\.sequence) == [2, 3, 4, 5])
        #expect(buffer[0].timestamp == ms(10))
    }

    @Test func unrequestedAndOutputLinesProduceNoEvents() throws {
        let chip = makeChip()
        let inputs = try chip.requestInputs([InputLineSettings(offset: 0)], consumer: "t")
        let outputs = try chip.requestOutputs([OutputLineSettings(offset: 2, initialValue: true)], consumer: "t")
        chip.schedulePulse(line: 1, at: ms(1), width: .milliseconds(1))
        chip.scheduleLevel(line: 2, at: ms(1), active: false)
        chip.advance(to: ms(10))
        #expect(!inputs.hasPendingEdgeEvents)
        #expect(chip.isHigh(2))  // the output drives its wire; the device cannot move it
        withExtendedLifetime(outputs) {}
    }

    @Test func selectsChipsByLabelNameOrPathAndListsThemWhenNoneMatches() throws {
        let first = SimChip(name: "gpiochip0", label: "pinctrl-bcm2711", lines: ["GPIO0"], clock: clock)
        let second = SimChip(name: "gpiochip4", label: "pinctrl-rp1", lines: ["GPIO0", "GPIO1"], clock: clock)
        #expect(try GPIOChipSelector.label("pinctrl-rp1").select(from: [first, second]) === second)
        #expect(try GPIOChipSelector.name("gpiochip0").select(from: [first, second]) === first)
        #expect(try GPIOChipSelector.path("sim:gpiochip4").select(from: [first, second]) === second)

        let error = #expect(throws: GPIOError.self) { try GPIOChipSelector.label("rp2").select(from: [first, second]) }
        let message = error?.description ?? ""
        #expect(message.contains("label \"rp2\""))
        #expect(message.contains("gpiochip0 [pinctrl-bcm2711]") && message.contains("gpiochip4 [pinctrl-rp1]"))
        #expect(message.contains("gpiodetect"))
        let none = #expect(throws: GPIOError.self) { try GPIOChipSelector.name("x").select(from: [SimChip]()) }
        #expect(none?.description.contains("no GPIO chips") == true)
    }
}
