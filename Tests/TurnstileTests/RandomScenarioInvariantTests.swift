import TurnstileTestSupport
import ControllerFSM
import ControllerFSMSim
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// docs/turnstile.md's invariants on random input streams, driven through the lines like every scenario:
/// the relay is released exactly when the state is `unlocked` or `emergency` (checked after every
/// dispatch by the recorder); credit is 0 outside `unlocked` and money balances (checked at every
/// output change and at the end); `coins` is the number of coin pulses.
@Suite("Scenario<TurnstileApplication>: invariants on random input streams")
struct RandomScenarioInvariantTests {

    struct RandomScenario {
        var text: String
        var coinPulses = 0
        var actions: [String: Int] = [:]
    }

    /// `count` actions at random times, at least 50 ms apart. A pulse on a line starts only once
    /// the line's previous pulse has ended and settled (3 ms of bounce, 10 ms of debounce) plus
    /// 50 ms, so every pulse is a pulse of its own.
    static func randomScenario(seed: UInt64, count: Int) -> RandomScenario {
        var random = SplitMix64(seed: seed)  // seeded, so a failing seed can be replayed
        var scenario = RandomScenario(text: "")
        var lines: [String] = []
        var now = 0  // milliseconds
        var freeAt: [String: Int] = ["coin": 0, "push": 0, "service": 0]
        var emergency = false
        func text(_ ms: Int) -> String {
            let fraction = String(ms % 1000)
            return "\(ms / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
        }
        for _ in 0..<count {
            now += Int.random(in: 50...2_500, using: &random)
            var action: String
            var line: String?
            var width = 0
            // An emergency is usually short; faults and jams are rare enough for repairs to
            // bring the turnstile back into service most of the time.
            let roll = emergency && Int.random(in: 0..<4, using: &random) == 0 ? 100 : Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<40: (action, line, width) = ("coin", "coin", 50)
            case 40..<75: (action, line, width) = ("push", "push", 150)
            case 75..<87: (action, line, width) = ("repair", "service", 100)
            case 87..<92 where !emergency, 100: action = emergency ? "emergency off" : "emergency on"; emergency.toggle()
            case 87..<97: action = "fault"
            default: (action, line, width) = ("push hold 31", "push", 31_000)
            }
            if let line {
                guard now >= freeAt[line]! else { continue }
                freeAt[line] = now + width + 13 + 50
            }
            if action == "coin" { scenario.coinPulses += 1 }
            scenario.actions[action.hasPrefix("emergency") ? "emergency" : action, default: 0] += 1
            lines.append("\(text(now)) \(action)")
        }
        // Long enough for every timer and jam to play out.
        lines.append("\(text(now + 40_000)) end")
        scenario.text = lines.joined(separator: "\n")
        return scenario
    }

    @Test("invariants hold on random streams", arguments: 1...40 as ClosedRange<UInt64>)
    func invariants(seed: UInt64) throws {
        let generated = Self.randomScenario(seed: seed, count: 400)
        let board = BoardFile.defaultSim
        let scenario = try Scenario<TurnstileApplication>.parse(generated.text, file: "random-\(seed)", vocabulary: TurnstileSimulation.vocabulary(for: board))
        let recorder = SimulationRecorder()
        let simulation = try TurnstileSimulation(board: board, seed: seed, reporter: recorder)
        let controller = simulation.controller
        recorder.probe = {
            let c = controller.counters
            let credit = controller.credit
            if controller.state != .unlocked && credit != 0 {
                return "credit \(credit) in \(controller.state.name)"
            }
            if c.coins != c.passages + c.expiredCredits + c.coinsOutOfService + credit {
                return "money does not balance: \(c), credit \(credit)"
            }
            return nil
        }
        let summary = try simulation.run(scenario)
        let c = summary.counters

        #expect(recorder.lockViolations.isEmpty, "seed \(seed): \(recorder.lockViolations.prefix(5))")
        #expect(recorder.probeViolations.isEmpty, "seed \(seed): \(recorder.probeViolations.prefix(5))")
        #expect(c.coins == generated.coinPulses, "seed \(seed): \(generated.coinPulses) coin pulses, \(c.coins) coins")
        #expect(c.coins == c.passages + c.expiredCredits + c.coinsOutOfService + summary.credit, "seed \(seed): \(c)")
        #expect(summary.state == .unlocked || summary.credit == 0, "seed \(seed): credit \(summary.credit) in \(summary.state)")
        #expect(recorder.levels[.lock] == !(summary.state == .unlocked || summary.state == .emergency),
                "seed \(seed): lock \(String(describing: recorder.levels[.lock])) at the end, in \(summary.state)")
        #expect(summary.counters.coins == recorder.taken(.coin).count, "seed \(seed): every coin is a taken coin event")
        // The stream must actually exercise the machine, or the invariants prove little.
        let visited = Set(recorder.statePath)
        #expect(visited == Set(TurnstileMachine.table.atomicStates), "seed \(seed) visited only \(visited)")
        #expect(c.passages > 0 && c.expiredCredits > 0 && c.coinsOutOfService > 0 && c.freePassages > 0 && c.forcedPushes > 0,
                "seed \(seed): a dull stream: \(c), actions \(generated.actions)")
    }
}
