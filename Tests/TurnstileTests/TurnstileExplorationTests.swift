import TurnstileTestSupport
import ControllerFSM
import Testing
import ControllerHost
import Turnstile

/// Every event sequence up to depth 12 from a fresh turnstile, with timer expiries as steps, on
/// the real transition code (`StateMachine.explore`): docs/turnstile.md's invariants hold after every
/// step. Configurations are told apart by state, credit, the state an emergency interrupted and
/// whether the state's timer runs; counters only grow, so the invariants check them instead.
@Suite("Turnstile: exhaustive exploration")
struct TurnstileExplorationTests {
    struct Configuration: Hashable {
        var state: TurnstileState
        var credit: Int
        var beforeEmergency: TurnstileState
        var timerRunning: Bool
    }

    static let depth = 12

    static func started() -> TurnstileMachine.Machine {
        var machine = TurnstileMachine.makeMachine()
        machine.start(at: .zero)
        return machine
    }

    static func key(_ machine: TurnstileMachine.Machine) -> Configuration {
        Configuration(
            state: machine.state, credit: machine.context.credit,
            beforeEmergency: machine.context.stateBeforeEmergency, timerRunning: machine.nextDeadline != nil)
    }

    /// docs/turnstile.md's invariants, and the timer rule: a state's timer runs exactly in the states
    /// that have one, so a stale timeout can never arrive.
    static func invariant(_ machine: TurnstileMachine.Machine) -> String? {
        let c = machine.context.counters
        let credit = machine.context.credit
        let state = machine.state
        if state != .unlocked && credit != 0 { return "credit \(credit) in \(state.name)" }
        if c.coins != c.passages + c.expiredCredits + c.coinsOutOfService + credit {
            return "money does not balance: \(c), credit \(credit)"
        }
        let released = state == .unlocked || state == .emergency
        if machine.context.outputs.lock == released { return "lock \(machine.context.outputs.lock) in \(state.name)" }
        let timed = state == .unlocked || state == .outOfOrder
        if (machine.nextDeadline != nil) != timed { return "timer running \(machine.nextDeadline != nil) in \(state.name)" }
        if machine.context.outputs.alarm != (state == .broken) { return "alarm \(machine.context.outputs.alarm) in \(state.name)" }
        return nil
    }

    @Test("every sequence of 12 events and timer expiries keeps the invariants")
    func invariantsHoldEverywhere() {
        let report = Self.started().explore(
            depth: Self.depth, events: TurnstileEvent.allCases.filter { $0 != .timeout }, key: Self.key, invariant: Self.invariant)
        #expect(report.violation == nil, "\(report)")
        #expect(report.depthReached == Self.depth)
        // Every state, with credits up to the depth: the search really went everywhere.
        #expect(report.configurations >= 40, "\(report)")
        print("exploration: \(report)")
    }

    @Test("a violated invariant is reported with the shortest sequence that reaches it")
    func shortestCounterexample() {
        let report = Self.started().explore(
            depth: 6, events: TurnstileEvent.allCases.filter { $0 != .timeout }, key: Self.key,
            invariant: { $0.state == .outOfOrder && $0.context.counters.faults > 0 ? "repaired after a fault" : nil })
        let steps = report.violation?.steps.map(\.description)
        #expect(steps == ["fault", "repair"], "\(report)")
    }
}
