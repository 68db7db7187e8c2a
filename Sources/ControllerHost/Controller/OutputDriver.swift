import ControllerFSM

/// The outputs' side of a ``ControllerCore``: which line each declared output is on, the level
/// last written to each, interlocks, pulses, why an output stands where the machine did not ask
/// (``OutputOverride``), stop and fail-safe levels, and failed writes.
///
/// A value with no chip and no machine: given the level the machine wants on an output, it
/// decides what a write pass writes and takes what became of each write; the core does the
/// writing. The pass is the core's, output by output, because a
/// failed write sends the output's failure event and the machine's answer must be written in
/// the middle of the pass, with every level read afresh: the driver is never in the middle of
/// a call of its own when the machine moves.
///
/// Indexes are declaration indexes (``ControllerApplication/outputs``); a *slot* is the output
/// request's index of a wired output.
// The driver never reads the machine: the controller passes the level the machine wants as a
// Bool. A call of the driver's (a mutating access to the controller's stored property) that
// took the context as an argument copied the context first, every output of every pass (about
// 120 instructions an edge under callgrind); and its queries on the event path are `mutating`
// though they change nothing, since a non-mutating call there copied the whole driver first.
@usableFromInline
struct OutputDriver<App: ControllerApplication> {
    /// The slot of each declared output, -1 when the board does not wire it.
    @usableFromInline let slots: [Int]
    /// Each declared output's interlock, as the index of the first output naming it; -1 for
    /// none. Numbers, so the write pass compares without touching strings.
    @usableFromInline let interlocks: [Int]
    /// Each output's interlock's yield condition.
    @usableFromInline let interlockYields: [MachineCondition<App>?]
    /// The logical level last written to each slot (its initial level before any write).
    @usableFromInline var written: [Bool]
    /// Whether the last write to each slot failed.
    @usableFromInline var lastWriteFailed: [Bool]
    /// When each declared output's pulse ends; `Int64.min` when none is on.
    @usableFromInline var pulseEnds: [Int64]
    /// Each output pulse's length in force, in nanoseconds.
    @usableFromInline var pulseLengths: [Int64]
    /// Why each declared output is not at the machine's level now (``OutputOverride/none`` when
    /// it is).
    @usableFromInline var overrideReasons: [OutputOverride]
    /// Episodes in which an output stood at a level other than the machine's, each counted once,
    /// when it begins.
    @usableFromInline var overrideEpisodes = 0
    /// Writes that failed (the machine's or the host's own).
    @usableFromInline var writeFailures = 0

    /// - Parameters:
    ///   - slots: the slot of each declared output, -1 when not wired.
    ///   - initialLevels: each slot's level as the request was made.
    init(settings: App.Settings, slots: [Int], initialLevels: [Bool]) {
        self.slots = slots
        interlocks = App.outputs.map { output in
            guard let name = output.interlock else { return -1 }
            return App.outputs.firstIndex { $0.interlock == name } ?? -1
        }
        interlockYields = App.outputs.map { output in
            guard let name = output.interlock else { return nil }
            return App.interlocks.first { $0.name == name }?.yieldsWhen
        }
        written = initialLevels
        lastWriteFailed = initialLevels.map { _ in false }
        pulseEnds = Array(repeating: .min, count: App.outputs.count)
        pulseLengths = Array(repeating: 0, count: App.outputs.count)
        overrideReasons = App.outputs.map { _ in .none }
        retime(settings)
    }

    /// A new request (after the chip came back), made at `levels` (by slot): nothing has failed
    /// on it yet.
    mutating func reattached(levels: [Bool]) {
        written = levels
        lastWriteFailed = levels.map { _ in false }
    }

    /// Takes the pulse lengths of new settings; a pulse already on keeps its end. Written in
    /// place, by index: a reload runs on the event loop, where nothing may allocate, and this
    /// code is not specialised for the application, where `map` and `enumerated()` allocate.
    mutating func retime(_ settings: App.Settings) {
        let outputs = App.outputs
        for index in 0..<outputs.count {
            pulseLengths[index] = outputs[index].pulse.map { settings[keyPath: $0.length.keyPath].nanosecondCount } ?? 0
        }
    }

    @inlinable
    func slot(of index: Int) -> Int? {
        let slot = slots[index]
        return slot < 0 ? nil : slot
    }

    // MARK: The write pass

    /// Output `index`'s pulse starts at `time`, for its length in force.
    @inlinable @inline(__always)
    mutating func startPulse(_ index: Int, at time: Int64) {
        pulseEnds[index] = MachineInstant.saturatingSum(time, pulseLengths[index])
    }

    /// Ends output `index`'s pulse if it is due by `time`.
    @inlinable @inline(__always)
    mutating func endPulseIfDue(_ index: Int, at time: Int64) {
        if pulseEnds[index] != .min && time >= pulseEnds[index] { pulseEnds[index] = .min }
    }

    /// Whether output `index`'s pulse is on: the output is on whatever the machine's level.
    /// (Mutating: see the note at the top of the file.)
    @inlinable @inline(__always)
    mutating func isPulsing(_ index: Int) -> Bool { pulseEnds[index] != .min }

    /// The earliest end of a pulse that is on; `Int64.max` when none is. (Mutating: see the
    /// note at the top of the file.)
    @inlinable
    var nextPulseEnd: Int64 {
        mutating get {
            var earliest = Int64.max
            for index in 0..<pulseEnds.count where pulseEnds[index] != .min { earliest = Swift.min(earliest, pulseEnds[index]) }
            return earliest
        }
    }

    /// Whether output `index` belongs to an interlock: going off, it is written before the rest
    /// in a break-before-make pass. (Mutating: see the note at the top of the file.)
    @inlinable @inline(__always)
    mutating func isInterlocked(_ index: Int) -> Bool { interlocks[index] >= 0 }

    /// Whether another output of `index`'s interlock is written on.
    @inlinable @inline(__always)
    func interlockedPartnerIsOn(_ index: Int) -> Bool {
        let group = interlocks[index]
        guard group >= 0 else { return false }
        for other in 0..<interlocks.count where other != index && interlocks[other] == group {
            if let slot = slot(of: other), written[slot] { return true }
        }
        return false
    }

    /// What the pass does with output `index` when the machine wants `level` on it. Each
    /// output's last decision in a pass says whether it stands where the machine asks, and if
    /// not, why.
    @inlinable @inline(__always)
    mutating func decide(_ index: Int, level: Bool) -> OutputWriteDecision {
        guard let slot = slot(of: index) else { return .none }
        guard written[slot] != level else {
            note(.none, for: index)
            return .none
        }
        return level && interlockedPartnerIsOn(index) ? .interlocked(slot: slot) : .write(slot: slot)
    }

    /// The write ``decide(_:level:)`` asked for succeeded.
    @inlinable @inline(__always)
    mutating func wrote(_ level: Bool, slot: Int, index: Int) {
        written[slot] = level
        lastWriteFailed[slot] = false
        note(.none, for: index)
    }

    /// The write ``decide(_:level:)`` asked for failed: counted and noted, before the failure
    /// event moves the machine.
    mutating func writeFailed(slot: Int, index: Int) {
        writeFailures += 1
        lastWriteFailed[slot] = true
        note(.writeFailed, for: index)
    }

    /// Why output `index` is (or is not) at the machine's level; a disagreement is counted
    /// once, when it begins.
    @inlinable @inline(__always)
    mutating func note(_ reason: OutputOverride, for index: Int) {
        if reason != .none && overrideReasons[index] == .none { overrideEpisodes += 1 }
        overrideReasons[index] = reason
    }

    // MARK: The host's own levels

    /// The level the host holds output `index` at when the machine cannot be trusted: its stop
    /// level, or its safe initial level when it declares none.
    func failSafeLevel(_ index: Int, settings: App.Settings) -> Bool {
        let output = App.outputs[index]
        return output.stopLevel?(settings) ?? output.initialLevel
    }

    /// Where the host drives output `index` at the end (when it declares a stop level, and
    /// `failSafe` is false) or into its fail safe (every wired output, its pulse ended): its
    /// slot and level, or `nil` when the host leaves it (not wired, no stop level, or already
    /// at its fail-safe level after a write that did not fail).
    mutating func hostLevel(_ index: Int, failSafe: Bool, settings: App.Settings) -> (slot: Int, level: Bool)? {
        guard let slot = slot(of: index) else { return nil }
        guard failSafe else { return App.outputs[index].stopLevel.map { (slot, $0(settings)) } }
        pulseEnds[index] = .min
        let level = failSafeLevel(index, settings: settings)
        return written[slot] != level || lastWriteFailed[slot] ? (slot, level) : nil
    }

    /// A host's own write (a stop or fail-safe level) succeeded (`true`) or failed.
    mutating func held(slot: Int, at level: Bool, succeeded: Bool) {
        if succeeded {
            written[slot] = level
            lastWriteFailed[slot] = false
        } else {
            writeFailures += 1
            lastWriteFailed[slot] = true
        }
    }

    /// After the host's own levels: output `index`, if wired and left at a level other than
    /// the machine's (`wanted`), is held by its stop level (or its failed write).
    @usableFromInline
    mutating func noteHostOverride(_ index: Int, wanted: Bool) {
        guard let slot = slot(of: index) else { return }
        note(written[slot] == wanted ? .none : lastWriteFailed[slot] ? .writeFailed : .stopLevel, for: index)
    }

    // MARK: What /status reads

    /// The logical level last written to the declared output `index`; `nil` when not wired.
    func level(of index: Int) -> Bool? { slot(of: index).map { written[$0] } }

    /// Bit `index` set for each declared output (of the first 64) held away from the machine's level.
    var overriddenMask: UInt64 {
        var mask: UInt64 = 0
        for index in 0..<Swift.min(overrideReasons.count, 64) where overrideReasons[index] != .none { mask |= 1 << UInt64(index) }
        return mask
    }

    /// Each declared output's ``OutputOverride`` raw value at bit `2 × index`, for the first 32.
    var overrideCodes: UInt64 {
        var codes: UInt64 = 0
        for index in 0..<Swift.min(overrideReasons.count, 32) {
            codes |= UInt64(overrideReasons[index].rawValue) << UInt64(2 * index)
        }
        return codes
    }

    /// Bit `index` set for each declared output (of the first 64) last written on.
    var levelMask: UInt64 {
        var levels: UInt64 = 0
        for index in 0..<Swift.min(slots.count, 64) {
            if let slot = slot(of: index), written[slot] { levels |= 1 << UInt64(index) }
        }
        return levels
    }

    /// Bit `index` set for each declared output (of the first 64) the board wires.
    var wiredMask: UInt64 {
        var wired: UInt64 = 0
        for index in 0..<Swift.min(slots.count, 64) where slots[index] >= 0 { wired |= 1 << UInt64(index) }
        return wired
    }
}

/// What a pass does with an output whose level the machine wants. Outside `OutputDriver` so it
/// is not generic: the driver's code is not specialised for the application, and a generic
/// type's metadata is made (allocated) on its first use, which may be on the event loop.
@usableFromInline
enum OutputWriteDecision: Equatable {
    /// Nothing: not wired, or already there (noted as the machine's).
    case none
    /// Write the level to `slot`.
    case write(slot: Int)
    /// Another output of its interlock is on: write only if the interlock yields now, else
    /// note it held (`OutputDriver.note(_:for:)` with `OutputOverride.interlock`).
    case interlocked(slot: Int)
}
