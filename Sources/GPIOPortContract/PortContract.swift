import ControllerFSM

/// What every backend of the GPIO port must do as the kernel does: the same checks run against
/// `SimChip` in the test suite and against libgpiod on the kernel's `gpio-sim` chip in the VM,
/// so the simulator cannot drift from the hardware's behaviour unnoticed.
public enum PortContract {
    /// The bench chip's lines: `LINE0` … `LINE7`.
    public static let lineCount = 8
    /// The consumer the checks request lines under.
    public static let consumer = "port-contract"
    /// The debounce period the checks use, and how long bounce lasts within it.
    static let debounce = Duration.milliseconds(10)
    static let bounceStep = Duration.microseconds(500)
    /// Longer than a debounce period plus the kernel's timer granularity (HZ=250: 4 ms), so a
    /// settled level has surely been reported.
    static let settle = Duration.milliseconds(50)

    public struct Check<Bench: ContractBench> {
        public let name: String
        public let run: (Bench) throws -> Void
    }

    /// Every check, in the order they run. Each releases what it requests.
    public static func checks<Bench: ContractBench>(for _: Bench.Type = Bench.self) -> [Check<Bench>] {
        [
            Check(name: "lines-by-name-and-offset", run: linesByNameAndOffset),
            Check(name: "output-initial-value-in-request", run: outputInitialValueInRequest),
            Check(name: "busy-line-names-its-holder", run: busyLineNamesItsHolder),
            Check(name: "active-low-input", run: activeLowInput),
            Check(name: "sequence-numbers-and-timestamps", run: sequenceNumbersAndTimestamps),
            Check(name: "debounce-bouncy-pulse", run: debounceBouncyPulse),
            Check(name: "debounce-out-of-range-refused", run: debounceOutOfRangeRefused),
            Check(name: "bias-as-requested", run: biasAsRequested),
            Check(name: "release-frees-lines", run: releaseFreesLines),
        ]
    }

    // MARK: Checks

    static func linesByNameAndOffset<Bench: ContractBench>(_ bench: Bench) throws {
        let chip = bench.chip
        try expect(chip.info.lineCount >= lineCount, "the bench chip has \(chip.info.lineCount) lines, fewer than \(lineCount)")
        try expect(try chip.offset(ofLineNamed: "LINE3") == 3, "LINE3 is not at offset 3")
        let names = (0..<chip.info.lineCount).map { "LINE\($0)" }
        try expectError(.lineNotFound(chip: chip.info.name, name: "NO-SUCH-LINE", available: names)) {
            _ = try chip.offset(ofLineNamed: "NO-SUCH-LINE")
        }
        let past = GPIOLineOffset(UInt32(chip.info.lineCount))
        try expectError(.offsetOutOfRange(chip: chip.info.name, offset: past, lineCount: chip.info.lineCount)) {
            _ = try chip.requestInputs([InputLineSettings(offset: past)], consumer: consumer)
        }
        try expectError(.invalidRequest(chip: chip.info.name, line: nil, reason: "no lines were given")) {
            _ = try chip.requestOutputs([], consumer: consumer)
        }
        try expect(try chip.lineInfo(at: 5).name == "LINE5", "line 5's info does not name it LINE5")
    }

    static func outputInitialValueInRequest<Bench: ContractBench>(_ bench: Bench) throws {
        let outputs = try bench.chip.requestOutputs([
            OutputLineSettings(offset: 4, activeLow: false, initialValue: true),
            OutputLineSettings(offset: 5, activeLow: true, initialValue: true),
            OutputLineSettings(offset: 6, activeLow: false, initialValue: false),
        ], consumer: consumer)
        defer { outputs.release() }
        try expect(bench.wire(4) && !bench.wire(5) && !bench.wire(6),
                   "after the request the wires are \(bench.wire(4)), \(bench.wire(5)), \(bench.wire(6)); expected high (asserted), low (asserted, active-low), low")
        try outputs.write(false, at: 0)
        try outputs.write(false, at: 1)
        try outputs.write(true, at: 2)
        try expect(!bench.wire(4) && bench.wire(5) && bench.wire(6), "writes did not reach the wires with the request's polarity")
        let info = try bench.chip.lineInfo(at: 5)
        try expect(info.direction == .output && info.activeLow, "line 5 reads as \(info.direction), activeLow \(info.activeLow)")
    }

    static func busyLineNamesItsHolder<Bench: ContractBench>(_ bench: Bench) throws {
        let chip = bench.chip
        let outputs = try chip.requestOutputs([OutputLineSettings(offset: 4)], consumer: consumer)
        defer { outputs.release() }
        try expect(try chip.lineInfo(at: 4).consumer == consumer, "line 4's consumer is not \(consumer)")
        do {
            _ = try chip.requestInputs([InputLineSettings(offset: 2), InputLineSettings(offset: 4)], consumer: "intruder")
            throw ContractFailure("a held line was requested a second time")
        } catch let error as GPIOError {
            guard case .lineBusy(_, let line, let holder) = error else { throw ContractFailure("expected lineBusy, got \(error)") }
            try expect(line.offset == 4 && holder == consumer, "the busy error names \(line) held by \(holder ?? "nobody")")
        }
        try expect(try chip.lineInfo(at: 2).consumer == nil, "a refused request left line 2 held (all or none)")
    }

    static func activeLowInput<Bench: ContractBench>(_ bench: Bench) throws {
        bench.setWire(0, high: true)
        bench.setWire(1, high: true)
        bench.pass(settle)
        let inputs = try bench.chip.requestInputs(
            [InputLineSettings(offset: 0, activeLow: true), InputLineSettings(offset: 1)], consumer: consumer)
        defer { inputs.release() }
        try expect(try !inputs.readValue(at: 0) && inputs.readValue(at: 1), "a high wire must read inactive when active-low, active otherwise")
        bench.setWire(0, high: false)
        bench.pass(settle)
        try expect(try inputs.readValue(at: 0), "a low wire must read active on an active-low line")
        let edges = try readAll(inputs, bench)
        try expect(edges.count == 1 && edges[0].lineIndex == 0 && edges[0].kind == .rising,
                   "the high-to-low edge of an active-low line must come as one rising edge on index 0; got \(describe(edges))")
    }

    static func sequenceNumbersAndTimestamps<Bench: ContractBench>(_ bench: Bench) throws {
        bench.setWire(2, high: false)
        bench.pass(settle)
        let inputs = try bench.chip.requestInputs([InputLineSettings(offset: 2)], consumer: consumer)
        defer { inputs.release() }
        for toggle in 0..<4 {
            bench.setWire(2, high: toggle % 2 == 0)
            bench.pass(.milliseconds(5))
        }
        bench.pass(settle)
        let edges = try readAll(inputs, bench)
        try expect(edges.map(\.kind) == [.rising, .falling, .rising, .falling], "expected four alternating edges, got \(describe(edges))")
        for (earlier, later) in zip(edges, edges.dropFirst()) {
            try expect(later.sequence == earlier.sequence + 1, "sequence numbers are not consecutive: \(describe(edges))")
            try expect(later.timestamp > earlier.timestamp, "timestamps do not increase: \(describe(edges))")
        }
    }

    static func debounceBouncyPulse<Bench: ContractBench>(_ bench: Bench) throws {
        bench.setWire(3, high: true)
        bench.pass(settle)
        let settings = [InputLineSettings(offset: 3, activeLow: true, debounce: debounce)]
        let inputs = try bench.chip.requestInputs(settings, consumer: consumer)
        defer { inputs.release() }
        // Press with bounce: five flips within about 3 ms, then held; release cleanly.
        for flip in 0..<5 {
            bench.setWire(3, high: flip % 2 == 1)
            bench.pass(bounceStep)
        }
        bench.pass(settle)
        bench.setWire(3, high: true)
        bench.pass(settle)
        var edges = try readAll(inputs, bench)
        if !inputs.edgesAreDebounced {
            var debouncer = EdgeDebouncer(settings: settings, initialLevels: [false])
            for edge in edges { debouncer.feed(edge) }
            edges = []
            while let edge = debouncer.nextAcceptedEdge(now: MachineInstant(nanoseconds: .max)) { edges.append(edge) }
        }
        try expect(edges.map(\.kind) == [.rising, .falling], "a bouncy press and a clean release must debounce to one rising and one falling edge; got \(describe(edges))")
    }

    /// A debounce period the kernel cannot hold, negative or past its 32-bit microseconds, is
    /// refused before any line is taken, naming the line: never wrapped into another period.
    static func debounceOutOfRangeRefused<Bench: ContractBench>(_ bench: Bench) throws {
        let chip = bench.chip
        for period in [Duration.microseconds(-1), InputLineSettings.maximumDebounce + .microseconds(1)] {
            do {
                let request = try chip.requestInputs([InputLineSettings(offset: 2), InputLineSettings(offset: 3, debounce: period)], consumer: consumer)
                request.release()
                throw ContractFailure("a debounce period of \(period) was taken")
            } catch let error as GPIOError {
                guard case .invalidRequest(_, let line, let reason) = error else { throw ContractFailure("expected invalidRequest, got \(error)") }
                try expect(line?.offset == 3 && reason == InputLineSettings.debounceProblem(period), "the refusal names \(String(describing: line)): \(reason)")
            }
            try expect(try chip.lineInfo(at: 2).consumer == nil, "a refused request left line 2 held (all or none)")
        }
    }

    static func biasAsRequested<Bench: ContractBench>(_ bench: Bench) throws {
        let inputs = try bench.chip.requestInputs(
            [InputLineSettings(offset: 6, bias: .pullUp), InputLineSettings(offset: 7, bias: .pullDown)], consumer: consumer)
        defer { inputs.release() }
        let up = try bench.chip.lineInfo(at: 6).bias
        let down = try bench.chip.lineInfo(at: 7).bias
        try expect(up == .pullUp && down == .pullDown, "the chip reports bias \(String(describing: up)) and \(String(describing: down)); requested pull-up and pull-down")
    }

    static func releaseFreesLines<Bench: ContractBench>(_ bench: Bench) throws {
        let chip = bench.chip
        let outputs = try chip.requestOutputs([OutputLineSettings(offset: 4, initialValue: true)], consumer: consumer)
        outputs.release()
        outputs.release()
        try expect(try chip.lineInfo(at: 4).consumer == nil, "a released line still has a consumer")
        try expectError(.requestReleased(chip: chip.info.name, consumer: consumer)) { try outputs.write(true, at: 0) }
        let again = try chip.requestInputs([InputLineSettings(offset: 4)], consumer: consumer)
        again.release()
    }

    // MARK: Helpers

    /// Edges taken per read; any batch works, reads repeat until none are left.
    static let edgeReadBatch = 64

    /// Every pending edge, after letting the bench settle.
    static func readAll<Request: GPIOInputRequest>(_ request: Request, _ bench: some ContractBench) throws -> [EdgeEvent] {
        let buffer = UnsafeMutableBufferPointer<EdgeEvent>.allocate(capacity: edgeReadBatch)
        defer { buffer.deallocate() }
        var edges: [EdgeEvent] = []
        while request.hasPendingEdgeEvents {
            let count = try request.readEdgeEvents(into: buffer)
            if count == 0 { break }
            edges.append(contentsOf: buffer[0..<count])
        }
        return edges
    }

    static func describe(_ edges: [EdgeEvent]) -> String {
        "[" + edges.map { "\($0.kind) line \($0.lineIndex) #\($0.sequence)" }.joined(separator: ", ") + "]"
    }

    static func expect(_ condition: @autoclosure () throws -> Bool, _ message: String) throws {
        if try !condition() { throw ContractFailure(message) }
    }

    static func expectError(_ expected: GPIOError, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as GPIOError {
            if error != expected { throw ContractFailure("expected \(expected), got \(error)") }
            return
        }
        throw ContractFailure("expected \(expected), but nothing was thrown")
    }
}
