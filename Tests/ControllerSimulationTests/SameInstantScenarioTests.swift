import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// Several actions at one instant: whatever their order in the scenario, every input edge is
/// handled within its debounce period — a direct command (`fault`) at the same time must not
/// leave an edge waiting until the next action (audit finding 1 of the robustness issue).
@Suite("Scenario<TurnstileApplication>: actions at the same instant, in either order")
struct SameInstantScenarioTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var before: String
        var together: [String]
        var expect: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "the alarm ends as a fault is reported: locked at once",
             before: "1 emergency on", together: ["5 emergency off", "5 fault"],
             expect: "5.1 expect state locked\n5.1 expect output lock 1\n5.1 expect counter faults 0"),
        Case(name: "the alarm starts as a fault is reported: released during the alarm",
             before: "", together: ["1 emergency on", "1 fault"],
             expect: "1.1 expect state emergency\n1.1 expect output lock 0\n1.1 expect counter faults 1"),
        Case(name: "a repair starts as a fault is reported: the alarm stops at once",
             before: "0.5 fault", together: ["3 repair", "3 fault"],
             expect: "3.1 expect state outOfOrder\n3.1 expect output alarm 0\n3.1 expect counter repairs 1"),
        Case(name: "a coin arrives as a fault is reported: counted out of service",
             before: "", together: ["2 coin", "2 fault"],
             expect: "2.1 expect state broken\n2.1 expect counter coinsOutOfService 1\n2.1 expect counter coins 1"),
    ]

    @Test(arguments: cases, [false, true])
    func handledWithinTheDebouncePeriod(_ scenario: Case, commandFirst: Bool) throws {
        let together = commandFirst ? scenario.together.reversed() : scenario.together
        try playExpectingSuccess("""
            \(scenario.before)
            \(together.joined(separator: "\n"))
            \(scenario.expect)
            10 end
            """)
    }
}
