import ControllerFSM
import Synchronization

/// An in-memory GPIO chip for tests and the simulator, in virtual time.
///
/// Three faces:
/// - the **port** (`GPIOChip`): requests, reads, edge events and writes, as a program on a
///   board would use a real chip;
/// - the **world** (the driver API in `SimChip+Driver.swift`): devices pulse and hold input
///   lines, with contact bounce placed by a seeded generator, at scheduled virtual times that
///   ``advance(to:)`` makes happen;
/// - the **test bench** (`SimChip+Faults.swift` and the queries below): failing reads and
///   writes, a chip that disappears, and the current level of every line.
///
/// Edges are delivered **raw**: the chip ignores each input's `debounce` setting and reports
/// every bounce, like a kernel without debounce support; filter them with `EdgeDebouncer`
/// (``SimInputRequest/edgesAreDebounced`` is `false`). Bias is recorded but has no effect,
/// since every simulated line has a device driving it.
///
/// Every output change goes to the sink given at creation, as it happens; the chip keeps only
/// each line's current value. Storage for scheduled edges and event buffers is reserved up
/// front, so advancing, reading and writing do not allocate in steady state.
public final class SimChip: GPIOChip, Sendable {
    public let info: GPIOChipInfo
    /// The virtual clock: edge timestamps and output change times come from it, and
    /// ``advance(to:)`` moves it forward.
    public let clock: ManualClock
    /// The seed of the bounce generator; the same seed and the same schedule give the same
    /// edges.
    public let seed: UInt64
    let eventBufferCapacityPerLine: Int
    let outputSink: @Sendable (SimOutputChange) -> Void
    let state: Mutex<SimChipState>

    /// - Parameters:
    ///   - name: the chip's name, as `gpiodetect` would show it.
    ///   - label: the chip's label, which boards usually match on.
    ///   - path: the chip's device path; `sim:<name>` when `nil`.
    ///   - lines: the lines, by offset, with their names and device wiring.
    ///   - clock: the virtual clock shared with whatever else runs in simulated time.
    ///   - seed: seeds the bounce generator.
    ///   - scheduleCapacity: raw edges that can wait to happen without the schedule growing
    ///     (a bouncy pulse takes 2 + 2 × bounce edges).
    ///   - eventBufferCapacityPerLine: each input request buffers this many events per line
    ///     (the kernel's default is 16); beyond that the oldest are dropped and counted.
    ///   - outputSink: called with every output change, outside the chip's lock (it may query
    ///     the chip), on the thread that wrote; writes racing on several threads may reach it
    ///     out of order.
    public init(
        name: String = "simchip0", label: String = "controllerfsm-sim", path: String? = nil,
        lines: [SimLine], clock: ManualClock, seed: UInt64 = 1, scheduleCapacity: Int = 1024,
        eventBufferCapacityPerLine: Int = 16,
        outputSink: @escaping @Sendable (SimOutputChange) -> Void = { _ in }
    ) {
        precondition(!lines.isEmpty, "a SimChip needs at least one line")
        precondition(
            lines.count <= Int(GPIOLineOffset.largest.rawValue) + 1,
            "a SimChip has at most \(Int(GPIOLineOffset.largest.rawValue) + 1) lines, as a kernel chip; got \(lines.count)")
        precondition(eventBufferCapacityPerLine > 0, "eventBufferCapacityPerLine must be positive")
        info = GPIOChipInfo(name: name, label: label, path: path ?? "sim:\(name)", lineCount: lines.count)
        self.clock = clock
        self.seed = seed
        self.eventBufferCapacityPerLine = eventBufferCapacityPerLine
        self.outputSink = outputSink
        state = Mutex(SimChipState(lines: lines, seed: seed, scheduleCapacity: scheduleCapacity))
    }

    // MARK: GPIOChip

    public func offset(ofLineNamed name: String) throws(GPIOError) -> GPIOLineOffset {
        let (found, names) = try state.withLock { (state) throws(GPIOError) -> (Int?, [String]) in
            if state.isGone { throw chipGone }
            return (state.lines.firstIndex { $0.name == name }, state.lines.map { $0.name ?? "" })
        }
        guard let found else { throw .lineNotFound(chip: info.name, name: name, available: names) }
        return GPIOLineOffset(UInt32(found))
    }

    public func lineInfo(at offset: GPIOLineOffset) throws(GPIOError) -> GPIOLineInfo {
        try state.withLock { (state) throws(GPIOError) -> GPIOLineInfo in
            if state.isGone { throw chipGone }
            let index = Int(offset.rawValue)
            guard index < state.lines.count else {
                throw .offsetOutOfRange(chip: info.name, offset: offset, lineCount: state.lines.count)
            }
            let line = state.lines[index]
            let isOutput = if case .output = line.holder { true } else { line.outputValue != nil }
            return GPIOLineInfo(
                offset: offset, name: line.name ?? "", consumer: line.consumer,
                direction: isOutput ? .output : .input, activeLow: line.requestActiveLow, bias: line.bias)
        }
    }

    /// Takes `lines` as inputs with a raw event buffer of `eventBufferCapacityPerLine` events
    /// per line. The input's `debounce` is not applied (see the type's notes).
    public func requestInputs(_ lines: [InputLineSettings], consumer: String) throws(GPIOError) -> SimInputRequest {
        let (slot, id) = try state.withLock { (state) throws(GPIOError) -> (Int, UInt64) in
            let indices = try state.validate(lines.map(\.offset), chip: info.name, path: info.path)
            for setting in lines {
                guard let problem = InputLineSettings.debounceProblem(setting.debounce) else { continue }
                throw .invalidRequest(chip: info.name, line: state.lineID(Int(setting.offset.rawValue)), reason: problem)
            }
            let id = state.takeRequestID()
            let slot = state.addInput(SimInputState(id: id, capacity: eventBufferCapacityPerLine * lines.count))
            for (index, line) in indices.enumerated() {
                state.lines[line].holder = .input(slot: slot, index: index)
                state.lines[line].consumer = consumer
                state.lines[line].requestActiveLow = lines[index].activeLow
                state.lines[line].bias = lines[index].bias
            }
            return (slot, id)
        }
        return SimInputRequest(chip: self, settings: lines, consumer: consumer, slot: slot, id: id)
    }

    /// Takes `lines` as outputs; each is driven at its initial value at once, and the sink
    /// hears of it, so a recording starts with every output's initial value.
    public func requestOutputs(_ lines: [OutputLineSettings], consumer: String) throws(GPIOError) -> SimOutputRequest {
        let now = clock.now()
        let (id, changes) = try state.withLock { (state) throws(GPIOError) -> (UInt64, [SimOutputChange]) in
            let indices = try state.validate(lines.map(\.offset), chip: info.name, path: info.path)
            let id = state.takeRequestID()
            var changes: [SimOutputChange] = []
            changes.reserveCapacity(lines.count)
            for (index, line) in indices.enumerated() {
                let setting = lines[index]
                let high = setting.initialValue != setting.activeLow
                state.lines[line].holder = .output(id: id, index: index)
                state.lines[line].consumer = consumer
                state.lines[line].requestActiveLow = setting.activeLow
                state.lines[line].isHigh = high
                state.lines[line].outputValue = setting.initialValue
                changes.append(
                    SimOutputChange(
                        time: now, offset: setting.offset, name: state.lines[line].name,
                        value: setting.initialValue, isHigh: high))
            }
            return (id, changes)
        }
        for change in changes { outputSink(change) }
        return SimOutputRequest(chip: self, settings: lines, consumer: consumer, id: id)
    }

    // MARK: Queries

    /// The wire level of the line: `true` = high.
    public func isHigh(_ line: GPIOLineOffset) -> Bool {
        let index = checkedLine(line)
        return state.withLock { $0.lines[index].isHigh }
    }

    /// The last logical value the line was driven to as an output; `nil` if it never was one.
    public func outputValue(of line: GPIOLineOffset) -> Bool? {
        let index = checkedLine(line)
        return state.withLock { $0.lines[index].outputValue }
    }

    /// Who holds the line, or `nil` when it is free.
    public func consumer(of line: GPIOLineOffset) -> String? {
        let index = checkedLine(line)
        return state.withLock { $0.lines[index].consumer }
    }

    /// The bias the line was last requested with.
    public func bias(of line: GPIOLineOffset) -> LineBias {
        let index = checkedLine(line)
        return state.withLock { $0.lines[index].bias }
    }

    // MARK: Internals

    var chipGone: GPIOError { .chipGone(chip: info.name, path: info.path) }

    /// The line's index, trapping on an offset the chip does not have: the driver and query API
    /// are test-bench code, where a wrong offset is a bug in the bench.
    func checkedLine(_ line: GPIOLineOffset, function: StaticString = #function) -> Int {
        let index = Int(line.rawValue)
        precondition(
            index < info.lineCount, "\(function): line \(line) is out of range on \(info.name) (\(info.lineCount) lines)")
        return index
    }
}
