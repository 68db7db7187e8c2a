import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// `--break-probability P`: after each passage taken in `unlocked`, the mechanism breaks (a
/// `fault`) with probability P, drawn from the seeded generator.
@Suite("Scenario<TurnstileApplication>: random breakage")
struct BreakProbabilityScenarioTests {
    /// `count` cycles of 7 s: a coin, a passage, then a repair (which works from locked and from
    /// broken alike) and its 5 s period, so every cycle starts locked.
    static func cycles(_ count: Int) -> String {
        (0..<count).map { cycle in
            let t = 7 * cycle
            return "\(t) coin\n\(t).5 push\n\(t + 1) repair"
        }.joined(separator: "\n") + "\n\(7 * count) end"
    }

    @Test("P = 1 breaks right after the first passage")
    func alwaysBreaks() throws {
        let run = try playExpectingSuccess("""
            0     coin
            0.5   push
            0.6   expect state broken
            0.6   expect counter passages 1
            0.6   expect counter faults 1
            0.6   expect output alarm 1
            1     coin
            1.5   push
            2     expect counter coinsOutOfService 1
            2     expect counter passages 1
            2     expect counter faults 1
            """, breakProbability: 1)
        let passage = try #require(run.taken(.push, from: .unlocked).first)
        let fault = try #require(run.taken(.fault).first)
        #expect(fault.at == passage.at && fault.from == .locked && fault.to == .broken,
                "the break follows the passage at once: passage \(passage), fault \(fault)")
        #expect(run.ignored.map(\.event) == [.push], "the second push meets a broken arm")
    }

    @Test("P = 1 does not break a forced push or a free passage, only a paid passage")
    func onlyPaidPassagesBreak() throws {
        try playExpectingSuccess("""
            0     push
            1     emergency on
            1.5   push
            2     emergency off
            2.5   expect counter faults 0
            2.5   expect state locked
            """, breakProbability: 1)
    }

    @Test("P = 0 never breaks")
    func neverBreaks() throws {
        let run = try playExpectingSuccess(Self.cycles(20), breakProbability: 0)
        #expect(run.counters.passages == 20 && run.counters.faults == 0)
    }

    @Test("the same seed gives the same run; the seed decides which passages break")
    func seedRepeats() throws {
        func pattern(seed: UInt64) throws -> (log: [String], faults: Int) {
            let run = try playExpectingSuccess(Self.cycles(40), seed: seed, breakProbability: 0.5)
            #expect(run.counters.passages == 40, "every cycle has its passage")
            return (run.log, run.counters.faults)
        }
        let first = try pattern(seed: 7)
        let again = try pattern(seed: 7)
        #expect(first.log == again.log, "two runs with seed 7 differ")
        #expect((5...35).contains(first.faults), "P = 0.5 broke \(first.faults) of 40 passages")
        let others = try [1, 2, 3].map { try pattern(seed: $0).log }
        #expect(others.contains { $0 != first.log }, "the seed has no effect on breakage")
    }
}
