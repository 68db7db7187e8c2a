import ControllerFSM
import ControllerHost
import Foundation
import ParkingBarrier
import Testing

/// Every sequence of up to 12 steps from a fresh barrier — the request and service pulses, the
/// four kept levels' edges, the emergency contact, the direct commands and timer expiries — on
/// the real transition code, through the runtime's `explore()`, which takes each step as the
/// host does (a level written into the context before its edge's event; the emergency on while
/// the contact or a command holds it). After every step: the declaration's invariants, the
/// test's own (the timer rule, the request count), and the host's writes after it, one output
/// at a time in the declaration's order, never passing through both motors on.
///
/// Configurations are told apart by state, the lines' levels, the flags and the time left on the
/// timer (the explorer's own key) besides `passed`, `faultBeforeEmergency` and `rising`;
/// counters only grow, so the invariants check them instead.
@Suite("Parking barrier: exhaustive exploration")
struct BarrierExplorationTests {
    struct Flags: Hashable {
        var passed, faultBeforeEmergency, rising, upStale, downStale, confirming: Bool
    }

    static func flags(_: BarrierState, _ c: BarrierContext) -> Flags {
        Flags(passed: c.passed, faultBeforeEmergency: c.faultBeforeEmergency, rising: c.rising,
              upStale: c.upStale, downStale: c.downStale, confirming: c.confirming)
    }

    /// One arm cannot be at its top and its rest at once.
    static func physical(_ step: ExplorationStep<ParkingBarrier>, _ at: ExploredConfiguration<ParkingBarrier>) -> Bool {
        switch step {
        case .level("up_limit", on: true): !at.level(of: "down_limit")
        case .level("down_limit", on: true): !at.level(of: "up_limit")
        default: true
        }
    }

    static func check(_ before: ExploredConfiguration<ParkingBarrier>, _ after: ExploredConfiguration<ParkingBarrier>) -> String? {
        // A request comes from the button's line or as a direct command (Home Assistant's cover).
        let requests = after.steps.count { $0 == .pulse("request") || $0 == .command(.request) }
        return BarrierInvariants.violation(after.state, after.context, timerRunning: after.isTimerRunning, requestPulses: requests)
            ?? BarrierInvariants.writeOrderViolation(from: (before.state, before.context), to: (after.state, after.context))
    }

    /// Deep enough to reach every configuration (checked below): the limit confirmation adds two
    /// steps to the longest shortest path.
    static let depth = 14

    static func levels(armUp: Bool) -> [RoleName: Bool] { ["up_limit": armUp, "down_limit": !armUp] }

    @Test("every sequence of 14 steps keeps the invariants, from an arm at rest or one found up", arguments: [false, true])
    func invariantsHoldEverywhere(armUp: Bool) {
        let started = ContinuousClock.now
        let report = ParkingBarrier.explore(
            depth: Self.depth, levels: Self.levels(armUp: armUp), key: Self.flags, allows: Self.physical, check: Self.check)
        let elapsed = ContinuousClock.now - started
        #expect(report.violation == nil, "\(report)")
        #expect(report.statesSeen == Set(BarrierMachine.table.atomicStates), "\(report.statesSeen)")
        // Depth 14 already reaches every configuration there is: a search without a bound
        // (it stops when no new one appears) finds no more.
        let unbounded = ParkingBarrier.explore(depth: 100, levels: Self.levels(armUp: armUp), key: Self.flags, allows: Self.physical)
        #expect(unbounded.depthReached < 100 && unbounded.isSaturated, "\(unbounded)")
        #expect(report.configurations == unbounded.configurations, "\(report); unbounded: \(unbounded)")
        print("barrier explore() (arm \(armUp ? "up" : "down")): \(report), \(elapsed)")
    }

    @Test("from every start the world can give (each combination of the level lines, an arm never at both limits), every sequence of 14 steps keeps the invariants")
    func invariantsHoldFromEveryStart() {
        let started = ContinuousClock.now
        let report = ParkingBarrier.exploreEveryStart(
            depth: Self.depth, key: Self.flags, startAllowed: { !($0["up_limit"] == true && $0["down_limit"] == true) },
            allows: Self.physical, check: Self.check)
        let elapsed = ContinuousClock.now - started
        let levelInputs = ParkingBarrier.inputs.filter(\.binding.isLevel).count
        #expect(report.starts == 3 << (levelInputs - 2), "every combination but both limits active: \(report)")
        #expect(report.violation == nil, "\(report)")
        #expect(report.statesSeen == Set(BarrierMachine.table.atomicStates), "\(report.statesSeen)")
        print("barrier exploreEveryStart(): \(report), \(elapsed)")
    }

    @Test("a violated invariant is reported with the shortest sequence that reaches it")
    func shortestCounterexample() {
        let report = ParkingBarrier.explore(depth: 6, levels: Self.levels(armUp: false), key: Self.flags, allows: Self.physical) { _, after in
            after.state == .closing ? "closing" : nil
        }
        let steps = report.violation?.steps.map(\.description)
        #expect(steps == ["pulse request", "set down_limit off", "set up_limit on", "(timer expires)"], "\(report)")
    }

    @Test("the invariants can fail: a machine that kept motor_down on over a vehicle is caught")
    func invariantsCanFail() {
        var d = BarrierTableTests.barrier(in: .closing)
        // Written past the host, so no edge reaches the machine: what a missing row would leave.
        d.machine.context.loop = true
        #expect(BarrierInvariants.violation(of: d) == "motor_down is never on while a vehicle is on the loop or the beam is broken, in closing")
    }

    // Green ("drive on") declares that it assumes the arm up, and explore()
    // checks that precondition after every step. On the table as it was, it finds both ways the
    // barrier said "drive on" with the arm part-way up.

    @Test("on the table as it was, explore() finds green on with the arm below its top")
    func findsTheOldDefect() {
        let report = ParkingBarrier.explore(
            depth: 8, levels: Self.levels(armUp: false), table: LegacyBarrierMachine.table, key: Self.flags, allows: Self.physical)
        guard let violation = report.violation else {
            Issue.record("no violation found on the old table: \(report)")
            return
        }
        #expect(violation.message == "green on only when the up limit is active (the arm is up) (broken in open)", "\(report)")
        // The shortest way there: an emergency that ends while the arm is still rising.
        #expect(violation.steps.map(\.description) == ["set emergency on", "set emergency off"], "\(report)")

        // Without the emergency words, the other member of the class: the arm leaving its top
        // while green is on (a closing's stale level reported after a request reopened it).
        let withoutEmergency = ParkingBarrier.explore(
            depth: 8, levels: Self.levels(armUp: false), table: LegacyBarrierMachine.table, key: Self.flags,
            allows: { step, at in Self.physical(step, at) && step != .command(.emergencyOn) && step != .level("emergency", on: true) })
        #expect(withoutEmergency.violation?.message == "green on only when the up limit is active (the arm is up) (broken in open)",
                "\(withoutEmergency)")
        #expect(withoutEmergency.violation?.steps.last == .level("up_limit", on: false), "\(withoutEmergency)")
    }
}

