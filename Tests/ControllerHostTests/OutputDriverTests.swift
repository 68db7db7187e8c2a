import ControllerFSM
@testable import ControllerHost
import ControllerTestSupport
import Testing
import Turnstile

/// The outputs' side of the controller alone, with no chip: what a pass writes, interlocks,
/// pulses, overrides and their episodes, failed writes, stop and fail-safe levels.
@Suite("Output driver: what a pass writes and why an output stands where it does, alone")
struct OutputDriverTests {
    typealias Shuttle = ShuttleForwardFirst
    static let forward = 0, backward = 1

    /// The shuttle's two interlocked motors on slots 0 and 1, both off.
    static func shuttle() -> OutputDriver<Shuttle> {
        OutputDriver(settings: ShuttleSettings(), slots: [0, 1], initialLevels: [false, false])
    }

    @Test("a pass asks for a write only where the line differs from the machine's level")
    func writesOnlyChanges() {
        var outputs = Self.shuttle()
        let first = outputs.decide(Self.forward, level: true)
        #expect(first == .write(slot: 0))
        outputs.wrote(true, slot: 0, index: Self.forward)
        let again = outputs.decide(Self.forward, level: true)
        let off = outputs.decide(Self.backward, level: false)
        #expect(again == .none)
        #expect(off == .none, "backward is off, as its line")
        #expect(outputs.levelMask == 0b01 && outputs.wiredMask == 0b11 && outputs.overrideEpisodes == 0)
        var partly = OutputDriver<Shuttle>(settings: ShuttleSettings(), slots: [0, -1], initialLevels: [false])
        let unwired = partly.decide(Self.backward, level: true)
        #expect(unwired == .none && partly.wiredMask == 0b01, "an output the board does not wire")
    }

    @Test("an interlock holds the other motor off while one is on, noted once as an episode; break before make frees it")
    func interlock() {
        var outputs = Self.shuttle()
        outputs.wrote(true, slot: 0, index: Self.forward)
        // The machine turned round: backward wants on while forward's line is still on.
        let bothInterlocked = outputs.isInterlocked(Self.forward) && outputs.isInterlocked(Self.backward)
        #expect(bothInterlocked)
        let held = outputs.decide(Self.backward, level: true)
        #expect(held == .interlocked(slot: 1))
        outputs.note(.interlock, for: Self.backward)
        #expect(outputs.overrideReasons[Self.backward] == .interlock && outputs.overrideEpisodes == 1)
        outputs.note(.interlock, for: Self.backward)
        #expect(outputs.overrideEpisodes == 1, "one episode, however many passes it lasts")
        let breaks = outputs.decide(Self.forward, level: false)
        #expect(breaks == .write(slot: 0))
        outputs.wrote(false, slot: 0, index: Self.forward)
        let makes = outputs.decide(Self.backward, level: true)
        #expect(makes == .write(slot: 1))
        outputs.wrote(true, slot: 1, index: Self.backward)
        #expect(outputs.overrideReasons == [.none, .none] && outputs.overriddenMask == 0)
    }

    @Test("a failed write is counted and noted; the fail safe drives it again even at the level it already shows")
    func failedWrite() throws {
        var outputs = Self.shuttle()
        outputs.writeFailed(slot: 0, index: Self.forward)
        #expect(outputs.writeFailures == 1 && outputs.overrideReasons[Self.forward] == .writeFailed && outputs.overrideEpisodes == 1)
        #expect(outputs.overrideCodes == UInt64(OutputOverride.writeFailed.rawValue))
        let failSafe = outputs.hostLevel(Self.forward, failSafe: true, settings: ShuttleSettings())
        let again = try #require(failSafe)
        #expect(again == (0, false), "the shuttle's motors are safe off")
        let alreadyOff = outputs.hostLevel(Self.backward, failSafe: true, settings: ShuttleSettings())
        let noStop = outputs.hostLevel(Self.forward, failSafe: false, settings: ShuttleSettings())
        #expect(alreadyOff == nil, "already off, not failed")
        #expect(noStop == nil, "no stop level declared")
        outputs.held(slot: 0, at: false, succeeded: true)
        outputs.noteHostOverride(Self.forward, wanted: true)
        #expect(outputs.overrideReasons[Self.forward] == .stopLevel, "held off while the machine asks for it on")
        outputs.held(slot: 0, at: false, succeeded: false)
        outputs.noteHostOverride(Self.forward, wanted: true)
        #expect(outputs.overrideReasons[Self.forward] == .writeFailed && outputs.writeFailures == 2)
    }

    @Test("a pulse lasts its length from the settings in force and ends when due")
    func pulse() throws {
        var settings = BoardFile.defaultSim.settings
        var outputs = OutputDriver<TurnstileApplication>(settings: settings, slots: [0, 1, 2, 3], initialLevels: [true, false, false, true])
        let alarm = try #require(TurnstileApplication.outputIndex(named: "alarm"))
        outputs.startPulse(alarm, at: 1_000)
        let end = 1_000 + settings.alarmPulse.nanosecondCount
        let started = outputs.nextPulseEnd
        #expect(started == end && outputs.pulseEnds[alarm] == end)
        outputs.endPulseIfDue(alarm, at: end - 1)
        #expect(outputs.pulseEnds[alarm] == end)
        outputs.endPulseIfDue(alarm, at: end)
        let ended = outputs.nextPulseEnd
        #expect(ended == .max && outputs.pulseEnds[alarm] == .min)
        settings.alarmPulse = .seconds(2)
        outputs.retime(settings)
        outputs.startPulse(alarm, at: 0)
        let retimed = outputs.nextPulseEnd
        #expect(retimed == Duration.seconds(2).nanosecondCount)
    }

    @Test("the stop level comes from the settings in force: the lock's is its fail mode")
    func stopLevel() throws {
        var settings = BoardFile.defaultSim.settings
        let lock = try #require(TurnstileApplication.outputIndex(named: "lock"))
        var outputs = OutputDriver<TurnstileApplication>(settings: settings, slots: [0, 1, 2, 3], initialLevels: [true, false, false, true])
        for mode in [FailMode.secure, .safe] {
            settings.failMode = mode
            let stop = outputs.hostLevel(lock, failSafe: false, settings: settings)
            #expect(stop?.level == (mode == .secure))
        }
    }
}
