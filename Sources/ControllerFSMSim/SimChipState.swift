import ControllerFSM

/// Everything mutable about a ``SimChip``, kept under one lock so that the driver, the input
/// reader and the output writer may live on different threads.
struct SimChipState: Sendable {
    var lines: [SimLineState]
    /// Raw edges still to happen, sorted by time *descending*, so the next one is `last` and
    /// taking it is O(1); equal times leave in the order they were scheduled.
    var schedule: [SimScheduledEdge]
    /// Live input requests by slot; a slot is reused after release, so requests also check
    /// their `id`.
    var inputs: [SimInputState?]
    var random: SplitMix64
    var failingReads = 0
    var isGone = false
    /// Requests numbered below this were made before the chip last went away: they stay dead.
    var firstLiveRequestID: UInt64 = 0
    var nextRequestID: UInt64 = 1
    /// Raw edges up to this time have been applied; scheduling earlier would rewrite history.
    var appliedThrough = Int64.min

    init(lines: [SimLine], seed: UInt64, scheduleCapacity: Int) {
        self.lines = lines.map { SimLineState(name: $0.name, wiredActiveLow: $0.activeLow) }
        schedule = []
        schedule.reserveCapacity(scheduleCapacity)
        inputs = []
        random = SplitMix64(seed: seed)
    }

    func lineID(_ line: Int) -> GPIOLineID {
        GPIOLineID(offset: GPIOLineOffset(UInt32(line)), name: lines[line].name)
    }

    // MARK: Schedule

    mutating func insert(_ edge: SimScheduledEdge) {
        // First index whose time is not after the new edge's: the new edge goes before the
        // equal ones, so they leave first.
        var low = 0
        var high = schedule.count
        while low < high {
            let middle = (low + high) / 2
            if schedule[middle].time > edge.time { low = middle + 1 } else { high = middle }
        }
        schedule.insert(edge, at: low)
    }

    /// `toggles` extra edges (even, so the line ends at `settled`) strictly inside
    /// `(start, start + window)`, one in each equal slice of the window at a random place, so
    /// they are ordered without sorting and spread like real bounce.
    mutating func insertBounce(line: Int, after start: Int64, window: Int64, toggles: Int, settled: Bool) {
        guard toggles > 0, window > 0 else { return }
        let slice = max(window / Int64(toggles), 1)
        for toggle in 0..<toggles {
            let jitter = slice > 1 ? 1 + Int64(random.next(below: UInt64(slice - 1))) : 1
            let active = toggle % 2 == 0 ? !settled : settled
            insert(SimScheduledEdge(time: start + Int64(toggle) * slice + jitter, line: line, active: active))
        }
    }

    // MARK: Delivery

    /// Applies every scheduled edge up to `time`, queueing events for the requests holding the
    /// lines. Touches only storage reserved earlier.
    mutating func apply(through time: Int64) {
        while let edge = schedule.last, edge.time <= time {
            schedule.removeLast()
            apply(edge)
        }
        appliedThrough = max(appliedThrough, time)
    }

    private mutating func apply(_ edge: SimScheduledEdge) {
        let line = edge.line
        // An output drives its own wire; the device cannot move it.
        if case .output = lines[line].holder { return }
        let high = edge.active != lines[line].wiredActiveLow
        guard high != lines[line].isHigh else { return }
        lines[line].isHigh = high
        guard !isGone, case .input(let slot, let index) = lines[line].holder else { return }
        let active = high != lines[line].requestActiveLow
        inputs[slot]?.record(lineIndex: index, active: active, at: edge.time)
    }

    // MARK: Requests

    /// Checks a request for `offsets` and returns their line indices.
    func validate(_ offsets: [GPIOLineOffset], chip: String, path: String) throws(GPIOError) -> [Int] {
        if isGone { throw .chipGone(chip: chip, path: path) }
        if offsets.isEmpty { throw .invalidRequest(chip: chip, line: nil, reason: "no lines were given") }
        var indices: [Int] = []
        indices.reserveCapacity(offsets.count)
        for (position, offset) in offsets.enumerated() {
            let line = Int(offset.rawValue)
            guard line < lines.count else {
                throw .offsetOutOfRange(chip: chip, offset: offset, lineCount: lines.count)
            }
            if offsets[..<position].contains(offset) {
                throw .invalidRequest(chip: chip, line: lineID(line), reason: "the line is listed twice")
            }
            if lines[line].holder != .none {
                throw .lineBusy(chip: chip, line: lineID(line), consumer: lines[line].consumer)
            }
            indices.append(line)
        }
        return indices
    }

    mutating func takeRequestID() -> UInt64 {
        defer { nextRequestID += 1 }
        return nextRequestID
    }

    mutating func addInput(_ input: SimInputState) -> Int {
        if let free = inputs.firstIndex(where: { $0 == nil }) {
            inputs[free] = input
            return free
        }
        inputs.append(input)
        return inputs.count - 1
    }

    /// Whether a request finds the chip gone: it is gone now, or went away after the request.
    func isGone(forRequest id: UInt64) -> Bool {
        isGone || id < firstLiveRequestID
    }

    func holdsInput(slot: Int, id: UInt64) -> Bool {
        inputs[slot]?.id == id
    }
}

struct SimLineState: Sendable {
    enum Holder: Equatable, Sendable {
        case none
        case input(slot: Int, index: Int)
        case output(id: UInt64, index: Int)
    }

    let name: String?
    let wiredActiveLow: Bool
    var isHigh: Bool
    var holder = Holder.none
    var consumer: String?
    var requestActiveLow = false
    var bias = LineBias.asIs
    /// The last logical value driven while the line was an output.
    var outputValue: Bool?
    var writesFail = false

    init(name: String?, wiredActiveLow: Bool) {
        self.name = name
        self.wiredActiveLow = wiredActiveLow
        // Idle devices leave the line at their inactive level.
        isHigh = wiredActiveLow
    }

    mutating func free() {
        holder = .none
        consumer = nil
        requestActiveLow = false
    }
}

struct SimScheduledEdge: Sendable {
    var time: Int64
    var line: Int
    /// The device's state after the edge; the wire level follows from the line's wiring.
    var active: Bool
}

/// An input request's share of the chip: its kernel-like event buffer.
struct SimInputState: Sendable {
    let id: UInt64
    var events: EdgeEventQueue
    var nextSequence: UInt64 = 0

    init(id: UInt64, capacity: Int) {
        self.id = id
        events = EdgeEventQueue(capacity: capacity)
    }

    mutating func record(lineIndex: Int, active: Bool, at time: Int64) {
        // The sequence advances for dropped events too, so the reader sees the gap.
        events.append(
            EdgeEvent(
                lineIndex: lineIndex, kind: EdgeKind(becameActive: active),
                timestamp: MachineInstant(nanoseconds: time), sequence: nextSequence))
        nextSequence += 1
    }
}
