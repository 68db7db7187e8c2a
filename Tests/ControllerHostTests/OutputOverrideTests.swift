import ControllerTestSupport
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import ControllerSimulation
import Testing

/// The host never silently disagrees with the machine: whenever it does not
/// drive an output to the level the machine's output function asks for — an interlock holding
/// it, a write that failed, a stop level — it counts the episode once, says why for each output,
/// and the simulator's trace shows it. A machine whose reachable states ask for two outputs of
/// one interlock at once is refused by `explore()`, unless the declaration says what the
/// interlock yields to.
@Suite("Output overrides: the host says whenever it does not drive what the machine asks")
struct OutputOverrideTests {
    /// Collects what a simulation reports about overrides and invariants.
    final class Collector<App: ControllerApplication>: SimulationReporter {
        var overrides: [String] = []
        var invariants: [String] = []
        var outputs: [String] = []
        func output(_ role: RoleName, value: Bool, at time: MachineInstant) { outputs.append("\(role)=\(value ? 1 : 0)") }
        func dispatched(_ record: DispatchRecord<App.State, App.Event>) {}
        func expectationFailed(_ failure: ExpectationFailure) {}
        func finished(_ summary: SimulationSummary<App>) {}
        func outputOverridden(_ role: RoleName, reason: String, at time: MachineInstant) {
            overrides.append("\(time.duration(since: .zero).secondsText) \(role): \(reason)")
        }
        func invariantBroken(_ name: String, in state: String, at time: MachineInstant) { invariants.append("\(state): \(name)") }
    }

    static let fire = """
        1 pulse button_a
        7 set fire on
        9 set fire off
        10 end
        """

    static func simulate<App: DoorsApplication>(_: App.Type, _ script: String = fire) throws -> (SimulationSummary<App>, Collector<App>) {
        let collector = Collector<App>()
        let simulation = try Simulation<App>(board: try App.board(), reporter: collector)
        let scenario = try Scenario<App>.parse(script, file: "fire.txt", vocabulary: Simulation<App>.vocabulary(for: try App.board()))
        let summary = try simulation.run(scenario)
        return (summary, collector)
    }

    @Test("an interlock that yields to nothing keeps one door locked in a fire, and the host says so: counted, named, traced")
    func interlockHoldsAgainstTheMachine() throws {
        let (summary, collector) = try Self.simulate(DoorsNeverYielding.self)
        #expect(summary.outputOverrides == 1, "\(collector.overrides)")
        #expect(collector.overrides == ["7.01 strike_b: held off by its interlock"], "\(collector.outputs)")
        // The same episode breaks the interlock's declared exclusion, checked as an invariant.
        #expect(summary.brokenInvariants == 1)
        #expect(collector.invariants == ["fireAlarm: the outputs of interlock strikes (strike_a, strike_b) are never asked on together"])
    }

    @Test("an interlock that yields to the fire alarm releases both doors in a fire: nothing overridden")
    func interlockYields() throws {
        let (summary, collector) = try Self.simulate(DoorsYieldingToFire.self)
        #expect(summary.outputOverrides == 0 && collector.overrides.isEmpty)
        #expect(summary.brokenInvariants == 0 && collector.invariants.isEmpty)
        #expect(collector.outputs.suffix(4) == ["strike_a=1", "strike_b=1", "strike_a=0", "strike_b=0"], "\(collector.outputs)")
    }

    @Test("explore() refuses a machine that asks for both strikes in a state where the interlock does not yield, naming it")
    func exploreRefusesTheDefinition() {
        let refused = DoorsNeverYielding.explore(key: { state, _ in state })
        #expect(refused.violation?.message
                == "the outputs of interlock strikes (strike_a, strike_b) are never asked on together (broken in fireAlarm)", "\(refused)")
        #expect(refused.violation?.steps == [.level("fire", on: true)], "\(refused)")
        let accepted = DoorsYieldingToFire.explore(key: { state, _ in state })
        #expect(accepted.violation == nil, "\(accepted)")
    }

    @Test("a write that fails leaves the output where it was: counted once per episode, ended when the line agrees again")
    func failedWrite() throws {
        let board = try DoorsYieldingToFire.board()
        let simulated = SimulatedBoard<DoorsYieldingToFire>(board: board, clock: ManualClock(), seed: 1) { _ in }
        let controller = try Controller(chip: simulated.chip, board: board)
        try controller.start(at: .zero)
        let strikeA = try simulated.chip.offset(ofLineNamed: "STRIKE_A")
        simulated.chip.failWrites(to: strikeA)
        try controller.send(.fireOn, at: .zero + .seconds(1))
        #expect(controller.override(of: "strike_a") == .writeFailed && controller.override(of: "strike_b") == .none)
        #expect(controller.outputOverrides == 1)
        // Still failing: the same episode, not a new one.
        try controller.process(now: .zero + .seconds(2))
        #expect(controller.outputOverrides == 1)
        // The machine no longer asks for it: the line agrees again, the episode ends.
        try controller.send(.fireOff, at: .zero + .seconds(3))
        #expect(controller.override(of: "strike_a") == .none && controller.overriddenOutputs == 0)
        // A new disagreement is a new episode.
        try controller.send(.fireOn, at: .zero + .seconds(4))
        #expect(controller.outputOverrides == 2 && controller.overriddenOutputs == 1)
        let codes = OutputOverride.decode(controller.overrideCodes, outputs: 2)
        #expect(codes == [.writeFailed, .none])
    }

    @Test("every reachable moment of random button and fire sequences: the host drives exactly what the machine asks, or says why",
          arguments: 0..<20)
    func randomSequences(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for yielding in [false, true] {
            var script = ""
            var milliseconds: UInt64 = 0
            var fire = false
            for _ in 0..<30 {
                milliseconds += random.next(below: 3000) + 200
                let time = "\(milliseconds / 1000).\(String(1000 + milliseconds % 1000).dropFirst())"
                switch random.next(below: 3) {
                case 0: script += "\(time) pulse button_a\n"
                case 1: script += "\(time) pulse button_b\n"
                default:
                    fire.toggle()
                    script += "\(time) set fire \(fire ? "on" : "off")\n"
                }
            }
            script += "\(milliseconds / 1000 + 1) end\n"
            func check<App: DoorsApplication>(_: App.Type) throws {
                let (summary, collector) = try Self.simulate(App.self, script)
                let fires = script.components(separatedBy: "set fire on").count - 1
                // Every fire is one episode of the never-yielding interlock, none of the yielding one.
                #expect(summary.outputOverrides == (yielding ? 0 : fires), "\(collector.overrides)\n\(script)")
                #expect(summary.brokenInvariants == (yielding ? 0 : fires), "\(collector.invariants)\n\(script)")
            }
            if yielding { try check(DoorsYieldingToFire.self) } else { try check(DoorsNeverYielding.self) }
        }
    }
}
