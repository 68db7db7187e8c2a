import ControllerTestSupport
import ControllerFSM
import ControllerHost
import Foundation
import Testing
import Turnstile

@Suite("explore(): any application, from its declaration")
struct GenericExplorationTests {
    @Test("a broken invariant is reported with the shortest path that breaks it, in the host's steps")
    func brokenInvariantIsFound() {
        let report = Hatch.explore(key: { _, _ in 0 })
        let steps = report.violation.map { $0.steps.map(\.description) }
        #expect(steps == ["pulse start", "set guard on"], "\(report)")
        #expect(report.violation?.message == "the motor never runs with the guard open (broken in running)", "\(report)")
        // The guard is read into the context before the start is: found open, the start breaks it.
        let found = Hatch.explore(levels: ["guard": true], key: { _, _ in 0 })
        #expect(found.violation.map { $0.steps.map(\.description) } == ["pulse start"], "\(found)")
    }

    @Test("exploreEveryStart starts from every combination of the level inputs, and names the start of a violation")
    func everyStart() {
        // No step opens the guard: only a start with the guard open can break the invariant.
        let closedOnly = { (step: ExplorationStep<Hatch>, _: ExploredConfiguration<Hatch>) in step != .level("guard", on: true) }
        let fromDefault = Hatch.explore(key: { _, _ in 0 }, allows: closedOnly)
        #expect(fromDefault.violation == nil, "\(fromDefault)")
        let report = Hatch.exploreEveryStart(key: { _, _ in 0 }, allows: closedOnly)
        #expect(report.starts == 4, "guard and stop, each active or not")
        #expect(report.violation.map { $0.steps.map(\.description) } == ["pulse start"], "\(report)")
        #expect(report.violationStart == ["guard": true, "stop": false], "\(report)")
        #expect("\(report)".contains("from a start with guard active"), "\(report)")
        // A start the world cannot give is left out.
        let admitted = Hatch.exploreEveryStart(key: { _, _ in 0 }, startAllowed: { !$0["guard"]! }, allows: closedOnly)
        #expect(admitted.starts == 2 && admitted.violation == nil, "\(admitted)")
    }

    @Test("timer expiries are steps, and the key keeps apart what the check reads")
    func timersAndKeys() {
        let twice = { (_: ExploredConfiguration<Hatch>, after: ExploredConfiguration<Hatch>) in
            after.context.timeouts >= 2 ? "ran out twice" : nil
        }
        // Told apart by timeouts, the second run is found; without, its start is the first's.
        let keyed = Hatch.explore(key: { _, c in c.timeouts }, allows: { step, _ in step != .level("guard", on: true) }, check: twice)
        #expect(keyed.violation.map { $0.steps.map(\.description) }
            == ["pulse start", "(timer expires)", "pulse start", "(timer expires)"], "\(keyed)")
        let merged = Hatch.explore(key: { _, _ in 0 }, allows: { step, _ in step != .level("guard", on: true) }, check: twice)
        #expect(merged.violation == nil, "\(merged)")
        #expect(merged.statesSeen == Set(Hatch.State.allCases) && merged.depthReached < 12, "\(merged)")
        #expect(merged.isSaturated && merged.stillChanging.isEmpty, "\(merged)")
    }

    @Test("a search that reaches its depth still finding new configurations says so, and what kept changing")
    func saturation() {
        // The runs counter is in the key and only grows: no depth exhausts it.
        let closedOnly = { (step: ExplorationStep<Hatch>, _: ExploredConfiguration<Hatch>) in step != .level("guard", on: true) }
        let runaway = Hatch.explore(depth: 8, key: { _, c in c.runs }, allows: closedOnly)
        #expect(runaway.violation == nil)
        #expect(!runaway.isSaturated, "\(runaway)")
        #expect(runaway.stillChanging == ["context"], "\(runaway)")
        #expect("\(runaway)".contains("not saturated: still finding new configurations at depth 8 (new values of context)"), "\(runaway)")
        // Without it, the same search runs out of new configurations: it checked them all.
        let whole = Hatch.explore(depth: 8, key: { _, _ in 0 }, allows: closedOnly)
        #expect(whole.isSaturated && !"\(whole)".contains("not saturated"), "\(whole)")
    }

    @Test("a condition follows both its sources: a command cannot end a stop the line holds")
    func conditionSources() {
        let report = Hatch.explore(key: { _, _ in 0 }, allows: { step, _ in step != .level("guard", on: true) }) { _, after in
            let held = after.level(of: "stop") || after.steps.last(where: { $0 == .command(.stopOn) || $0 == .command(.stopOff) }) == .command(.stopOn)
            return held != (after.state == .stopped) ? "stopped is \(after.state == .stopped), the sources say \(held)" : nil
        }
        #expect(report.violation == nil, "\(report)")
        #expect(report.statesSeen.contains(.stopped))
    }

    @Test("the turnstile's declared invariants hold on every sequence of 12 steps from every start-up, and its timer rule with them")
    func turnstile() {
        let started = ContinuousClock.now
        let report = TurnstileApplication.exploreEveryStart(key: { _, c in TurnstileKey(credit: c.credit, beforeEmergency: c.stateBeforeEmergency) }, check: { _, after in
            let timed = after.state == .unlocked || after.state == .outOfOrder
            if after.isTimerRunning != timed { return "timer running \(after.isTimerRunning) in \(after.state.name)" }
            if after.context.outputs.alarm != (after.state == .broken) { return "alarm \(after.context.outputs.alarm) in \(after.state.name)" }
            return nil
        })
        let elapsed = ContinuousClock.now - started
        #expect(report.violation == nil, "\(report)")
        #expect(report.depthReached == 12 && report.statesSeen == Set(TurnstileMachine.table.atomicStates), "\(report)")
        #expect(report.starts == 1 << TurnstileApplication.inputs.filter(\.binding.isLevel).count, "\(report)")
        // Credit up to the depth in unlocked, and the emergency from every state it can interrupt.
        #expect(report.configurations >= 40, "\(report)")
        print("turnstile explore(): \(report), \(elapsed)")
    }

    struct TurnstileKey: Hashable {
        var credit: Int
        var beforeEmergency: TurnstileState
    }
}
