import ControllerFSM
import ControllerHost

/// A scenario's steps played in time order, by whoever owns the world they act on: `simulate`
/// in virtual time, the daemon's simulated board in real time (`run --script`). One set of rules
/// for both, so a scenario plays the same however it is played:
/// - a level set active at 0 (`0 emergency on`) is the world before the controller starts:
///   ``setBeforeStart`` hands those to the owner to apply before the start;
/// - at each instant, the world is first brought to just before it and the `expect`s there are
///   checked (an expect sees everything strictly before its time, stimuli at its own instant
///   included), then the world is brought to the instant and every other step acts.
///
/// Index loops throughout: the daemon plays on its event loop, generic and unspecialised, where
/// iterating an array of generic steps would allocate.
package struct ScenarioPlayer<App: ControllerApplication> {
    /// The steps to play in order: the scenario's, but those set before the start and `end`.
    private let steps: [ScenarioStep<App>]
    private var next = 0
    /// The levels the scenario sets active at 0, to apply before the controller starts.
    package let setBeforeStart: [ScenarioAction<App>]
    /// How many `expect` lines the steps hold.
    package let expectationCount: Int
    /// How many of them were checked so far.
    package private(set) var checkedExpectations = 0

    /// The player of `scenario`; with none, one with nothing to play.
    package init(_ scenario: Scenario<App>?) {
        var before: [ScenarioAction<App>] = []
        var played: [ScenarioStep<App>] = []
        for step in scenario?.steps ?? [] {
            if step.time == .zero, case .level(_, on: true) = step.action {
                before.append(step.action)
            } else if step.action != .end {
                played.append(step)
            }
        }
        steps = played
        setBeforeStart = before
        expectationCount = played.count { $0.action.isExpectation }
    }

    /// When the next step is due; nil once every step is played.
    package var nextTime: MachineInstant? {
        next < steps.count ? MachineInstant.zero + steps[next].time : nil
    }

    /// Plays every step due by `now`, instant by instant: `settleBefore(t, expects)` (the world
    /// brought to just before `t`; `expects` says whether an expect is checked at `t`), each
    /// expect at `t` to `check`, `settleAt(t)`, then each other step's action to `perform`.
    package mutating func play(
        through now: MachineInstant,
        settleBefore: (_ instant: MachineInstant, _ expects: Bool) throws(GPIOError) -> Void,
        check: (ScenarioStep<App>) -> Void,
        settleAt: (_ instant: MachineInstant) throws(GPIOError) -> Void,
        perform: (ScenarioAction<App>, MachineInstant) throws(GPIOError) -> Void
    ) throws(GPIOError) {
        while next < steps.count, MachineInstant.zero + steps[next].time <= now {
            let time = MachineInstant.zero + steps[next].time
            var group = next
            var expects = false
            while group < steps.count && steps[group].time == steps[next].time {
                if steps[group].action.isExpectation { expects = true }
                group += 1
            }
            try settleBefore(time, expects)
            var index = next
            while index < group {
                if steps[index].action.isExpectation {
                    checkedExpectations += 1
                    check(steps[index])
                }
                index += 1
            }
            try settleAt(time)
            index = next
            while index < group {
                if !steps[index].action.isExpectation { try perform(steps[index].action, time) }
                index += 1
            }
            next = group
        }
    }
}
