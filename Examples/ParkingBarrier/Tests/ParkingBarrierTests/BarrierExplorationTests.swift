import ControllerFSM
import ParkingBarrier
import Testing

/// Every sequence of up to 12 steps from a fresh barrier — pulses, commands, level edges and
/// timer expiries — on the real transition code, with the invariants checked after every step,
/// and the host's writes after it, one output at a time in the declaration's order, never
/// passing through both motors on.
///
/// The search is `ObservedMachine.explore()`'s (breadth-first, configurations told apart by a
/// key, the shortest sequence to a violation), run on the host's driver rather than the bare
/// machine: a level's edge must write its level into the context before its event, and
/// `explore()` sends bare events. Configurations are told apart by state, the four levels, the
/// flags and whether the timer runs; counters only grow, so the invariants check them instead.
@Suite("Parking barrier: exhaustive exploration")
struct BarrierExplorationTests {
    enum Step: Hashable, CustomStringConvertible {
        case event(BarrierEvent)
        case edge(BarrierDriver.Level, Bool)
        case timerExpiry

        var description: String {
            switch self {
            case .event(let event): event.name
            case .edge(let level, let active): "\(level) \(active ? "on" : "off")"
            case .timerExpiry: "(timer expires)"
            }
        }
    }

    struct Configuration: Hashable {
        var state: BarrierState
        var levels: [Bool]
        var passed, faultBeforeEmergency, rising, timerRunning: Bool
    }

    struct Report: CustomStringConvertible {
        var configurations = 0, stepsRun = 0, depthReached = 0
        var statesSeen: Set<BarrierState> = []
        var violation: (steps: [Step], message: String)?

        var description: String {
            var text = "\(configurations) configurations, \(stepsRun) steps, depth \(depthReached)"
            if let violation { text += "; violated after \(violation.steps.map(\.description).joined(separator: ", ")): \(violation.message)" }
            return text
        }
    }

    static let depth = 12
    static let steps: [Step] = [BarrierEvent.request, .fault, .repair, .emergencyOn, .emergencyOff].map(Step.event)
        + BarrierDriver.Level.allCases.flatMap { [Step.edge($0, true), .edge($0, false)] } + [.timerExpiry]

    static func key(_ d: BarrierDriver) -> Configuration {
        let c = d.context
        return Configuration(
            state: d.state, levels: BarrierDriver.Level.allCases.map { c[keyPath: $0.keyPath] },
            passed: c.passed, faultBeforeEmergency: c.faultBeforeEmergency, rising: c.rising, timerRunning: d.timerRunning)
    }

    /// Runs `step` on a copy; `nil` when it is not a step from here (a line already at that
    /// level, no timer running, or both limit switches at once).
    static func run(_ step: Step, from d: BarrierDriver) -> BarrierDriver? {
        var copy = d
        switch step {
        case .event(let event): copy.send(event)
        case .edge(let level, let active):
            let other: BarrierDriver.Level? = level == .upLimit ? .downLimit : level == .downLimit ? .upLimit : nil
            if active, let other, d.context[keyPath: other.keyPath] { return nil }
            if copy.set(level, active) == nil { return nil }
        case .timerExpiry: if !copy.expireTimer() { return nil }
        }
        return copy
    }

    static func explore(from start: BarrierDriver, depth: Int, invariant: (BarrierDriver) -> String?) -> Report {
        var report = Report()
        var seen: Set<Configuration> = [key(start)]
        report.statesSeen.insert(start.state)
        if let message = invariant(start) {
            report.violation = ([], message)
            return report
        }
        var frontier: [(BarrierDriver, [Step])] = [(start, [])]
        for level in 1...depth {
            var next: [(BarrierDriver, [Step])] = []
            for (driver, path) in frontier {
                for step in steps {
                    guard let after = run(step, from: driver) else { continue }
                    report.stepsRun += 1
                    report.statesSeen.insert(after.state)
                    if let message = invariant(after) ?? BarrierInvariants.writeOrderViolation(from: driver, to: after) {
                        report.violation = (path + [step], message)
                        report.configurations = seen.count
                        report.depthReached = level
                        return report
                    }
                    if seen.insert(key(after)).inserted { next.append((after, path + [step])) }
                }
            }
            report.depthReached = level
            if next.isEmpty { break }
            frontier = next
        }
        report.configurations = seen.count
        return report
    }

    @Test("every sequence of 12 steps keeps the invariants, from an arm at rest or one found up", arguments: [false, true])
    func invariantsHoldEverywhere(armUp: Bool) {
        let start = BarrierDriver(armDown: !armUp, armUp: armUp)
        let report = Self.explore(from: start, depth: Self.depth, invariant: BarrierInvariants.violation)
        #expect(report.violation == nil, "\(report)")
        #expect(report.statesSeen == Set(BarrierState.allCases), "\(report.statesSeen)")
        // Depth 12 already reaches every configuration there is: a search without a bound
        // (it stops when no new one appears) finds no more.
        let unbounded = Self.explore(from: start, depth: 100, invariant: { _ in nil })
        #expect(unbounded.depthReached < 100)
        #expect(report.configurations == unbounded.configurations, "\(report); unbounded: \(unbounded)")
        print("barrier exploration (arm \(armUp ? "up" : "down")): \(report)")
    }

    @Test("a violated invariant is reported with the shortest sequence that reaches it")
    func shortestCounterexample() {
        let report = Self.explore(from: BarrierDriver(), depth: 6) { $0.state == .closing ? "closing" : nil }
        let steps = report.violation?.steps.map(\.description)
        #expect(steps == ["request", "down_limit off", "up_limit on", "(timer expires)"], "\(report)")
    }

    @Test("the invariants can fail: a machine that kept motor_down on over a vehicle is caught")
    func invariantsCanFail() {
        var d = BarrierTableTests.barrier(in: .closing)
        // Written past the host, so no edge reaches the machine: what a missing row would leave.
        d.machine.context.loop = true
        #expect(BarrierInvariants.violation(of: d) == "motor_down is never on while a vehicle is on the loop or the beam is broken, in closing")
    }
}
