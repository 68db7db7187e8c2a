import ControllerFSM
import ControllerFSMSim
import Testing

@Suite struct SimChipFaultTests {
    let chip = SimChip(name: "gpiochip7", lines: ["COIN", "LOCK"], clock: ManualClock())

    @Test func theNextReadsFailNamingChipAndLineThenReadsWorkAgain() throws {
        let inputs = try chip.requestInputs([InputLineSettings(offset: 0)], consumer: "t")
        chip.schedulePulse(line: 0, at: ms(1), width: .milliseconds(1))
        chip.advance(to: ms(5))
        chip.failNextReads(2)

        let valueError = #expect(throws: GPIOError.self) { try inputs.readValue(at: 0) }
        #expect(valueError == .readFailed(chip: "gpiochip7", line: GPIOLineID(offset: 0, name: "COIN"), errno: 5))
        let message = valueError?.description ?? ""
        #expect(message.hasPrefix("reading line 0 \"COIN\" of GPIO chip gpiochip7 failed:"))
        #expect(message.contains("errno 5") && message.contains("dmesg"))

        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        let eventError = #expect(throws: GPIOError.self) { try inputs.readEdgeEvents(into: buffer) }
        #expect(eventError == .readFailed(chip: "gpiochip7", line: nil, errno: 5))
        #expect(eventError?.description.contains("edge events of GPIO chip gpiochip7") == true)

        // Nothing was lost by the failed read.
        #expect(try inputs.readEdgeEvents(into: buffer) == 2)
        #expect(try !inputs.readValue(at: 0))
    }

    @Test func failingWritesNameChipAndLineAndLeaveTheLevelAlone() throws {
        let recorder = OutputRecorder()
        let chip = SimChip(name: "gpiochip7", lines: ["COIN", "LOCK"], clock: ManualClock(), outputSink: recorder.sink)
        let outputs = try chip.requestOutputs([OutputLineSettings(offset: 1, initialValue: true)], consumer: "t")
        chip.failWrites(to: 1)
        let error = #expect(throws: GPIOError.self) { try outputs.write(false, at: 0) }
        #expect(error == .writeFailed(chip: "gpiochip7", line: GPIOLineID(offset: 1, name: "LOCK"), errno: 5))
        #expect(error?.description.hasPrefix("writing line 1 \"LOCK\" of GPIO chip gpiochip7 failed:") == true)
        #expect(chip.outputValue(of: 1) == true)
        #expect(recorder.all.count == 1)

        chip.failWrites(to: 1, false)
        try outputs.write(false, at: 0)
        #expect(chip.outputValue(of: 1) == false)
        #expect(recorder.all.count == 2)
    }

    @Test func aVanishedChipRefusesEverythingAndSaysWhy() throws {
        let inputs = try chip.requestInputs([InputLineSettings(offset: 0)], consumer: "t")
        let outputs = try chip.requestOutputs([OutputLineSettings(offset: 1)], consumer: "t")
        chip.schedulePulse(line: 0, at: ms(1), width: .milliseconds(1))
        chip.advance(to: ms(1))
        chip.disappear()
        #expect(chip.isGone)
        chip.advance(to: ms(10))

        let gone = GPIOError.chipGone(chip: "gpiochip7", path: "sim:gpiochip7")
        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        #expect(throws: gone) { try inputs.readValue(at: 0) }
        #expect(throws: gone) { try inputs.readEdgeEvents(into: buffer) }
        #expect(throws: gone) { try outputs.write(true, at: 0) }
        #expect(throws: gone) { try chip.offset(ofLineNamed: "COIN") }
        #expect(throws: gone) { try chip.requestInputs([InputLineSettings(offset: 0)], consumer: "t2") }
        #expect(throws: gone) { try chip.requestOutputs([OutputLineSettings(offset: 0)], consumer: "t2") }
        #expect(inputs.hasPendingEdgeEvents, "like a removed device's descriptor: it wakes the reader, whose read fails")
        inputs.release()
        outputs.release()
        #expect(gone.description.hasPrefix("GPIO chip gpiochip7 (sim:gpiochip7) has gone away"))
    }

    @Test func errnoAdviceIsPartOfTheMessage() {
        let denied = GPIOError.requestFailed(chip: "gpiochip0", errno: 13)
        #expect(denied.description.contains("Permission denied (errno 13)"))
        #expect(denied.description.contains("group"))
        let unknownConsumer = GPIOError.lineBusy(chip: "gpiochip0", line: GPIOLineID(offset: 17), consumer: nil)
        #expect(unknownConsumer.description.hasPrefix("line 17 of GPIO chip gpiochip0 is busy: another consumer holds it."))
        #expect(unknownConsumer.chip == "gpiochip0" && unknownConsumer.line == GPIOLineID(offset: 17))
        let range = GPIOError.offsetOutOfRange(chip: "gpiochip0", offset: 60, lineCount: 54)
        #expect(range.description.contains("has 54 lines (0 to 53)"))
    }
}
