import ControllerTestSupport
import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// Every `expect` kind, holding and failing: a failure names the file, the line, the time, what
/// was expected and what was found; the run goes on to the end.
@Suite("Scenario<TurnstileApplication>: expect")
struct ExpectScenarioTests {
    /// After this the turnstile is unlocked with credit 1: coins 2, passages 1, lock 0, alarm 0,
    /// ready 1, inhibit 0. The expect under test goes on line 4, at 2 s.
    static let prelude = """
        0     coin
        0.5   coin
        1     push
        """

    struct Case: Sendable, CustomTestStringConvertible {
        var expect: String
        /// nil when the expect holds.
        var message: String?
        var testDescription: String { "\(expect) \(message == nil ? "holds" : "fails")" }
    }

    static let cases: [Case] = [
        Case(expect: "expect state unlocked"),
        Case(expect: "expect state locked", message: "expected state locked, but the turnstile is unlocked in inService in operating"),
        Case(expect: "expect state emergency", message: "expected state emergency, but the turnstile is unlocked in inService in operating"),
        // A superstate is expected as any state is: it holds while a state inside it is active.
        Case(expect: "expect state inService", message: nil),
        Case(expect: "expect state operating", message: nil),
        Case(expect: "expect state outOfService", message: "expected state outOfService, but the turnstile is unlocked in inService in operating"),
        Case(expect: "expect counter coins 2"),
        Case(expect: "expect counter passages 1"),
        Case(expect: "expect counter ignored 0"),
        Case(expect: "expect counter coins 3", message: "expected counter coins to be 3, but it is 2"),
        Case(expect: "expect counter expiredCredits 1", message: "expected counter expiredCredits to be 1, but it is 0"),
        Case(expect: "expect credit 1"),
        Case(expect: "expect credit 0", message: "expected credit 0, but it is 1"),
        Case(expect: "expect output lock 0"),
        Case(expect: "expect output lock 1", message: "expected output lock to be 1, but it is 0"),
        Case(expect: "expect output ready 1"),
        Case(expect: "expect output alarm 0"),
        Case(expect: "expect output alarm 1", message: "expected output alarm to be 1, but it is 0"),
        Case(expect: "expect output inhibit 1", message: "expected output inhibit to be 1, but it is 0"),
    ]

    @Test("each expect kind holds or fails with its message", arguments: cases)
    func expectation(_ check: Case) throws {
        let run = try play("\(Self.prelude)\n2 \(check.expect)\n3 end")
        if let message = check.message {
            try #require(run.failures.count == 1, "one failure expected: \(run.failures.map(\.description))")
            let failure = run.failures[0]
            #expect(failure.file == scenarioFile)
            #expect(failure.line == 4)
            #expect(failure.time == .seconds(2))
            #expect(failure.message == message)
            #expect(run.failures.first?.description == "\(scenarioFile): line 4: at 2 s: \(message)")
            #expect(run.summary?.failedExpectations == 1)
        } else {
            #expect(run.failures.isEmpty, "\(check.expect) should hold: \(run.failures.map(\.description))")
            #expect(run.summary?.failedExpectations == 0)
        }
        #expect(run.summary?.endTime == .seconds(3), "the run goes on to the end either way")
    }

    @Test("every failed expect is reported, in order, and the run still reaches its end")
    func severalFailures() throws {
        let run = try play("""
            0     expect state broken
            0     coin
            # a comment line still counts in the line numbers
            1.5   expect credit 7
            1.5   expect state unlocked
            9     expect counter expiredCredits 0
            10    end
            """)
        #expect(run.failures.map(\.line) == [1, 4, 6])
        #expect(run.failures.map(\.time) == [.zero, seconds(1.5), .seconds(9)])
        #expect(run.failures.map(\.message) == [
            "expected state broken, but the turnstile is locked in inService in operating",
            "expected credit 7, but it is 1",
            "expected counter expiredCredits to be 0, but it is 1",
        ])
        #expect(run.summary?.failedExpectations == 3)
        #expect(run.taken(.timeout).count == 1, "the relock timeout still happened after the failures")
    }

    @Test("an expect at the end time is still checked")
    func expectAtTheEnd() throws {
        let run = try play("0 coin\n3 expect state locked\n3 end")
        #expect(run.failures.map(\.description) == ["\(scenarioFile): line 2: at 3 s: expected state locked, but the turnstile is unlocked in inService in operating"])
    }

    @Test("an expect sees only what happened strictly before its time")
    func strictlyBefore() throws {
        try playExpectingSuccess("""
            1     coin
            1     expect counter coins 0
            1.01  expect counter coins 0
            1.1   expect counter coins 1
            """)
    }
}
