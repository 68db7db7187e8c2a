import ControllerFSMSim
import ControllerTestSupport
import ControllerFSM
import Testing

/// The configuration path (SCXML's algorithm over the set of active states, taken by every
/// machine with parallel regions) against the nested path: each random nested machine of
/// `HierarchyModelTests` is run as written, and again inside one region of a parallel state,
/// where it must do exactly the same — every exit, action and entry in the same order, the same
/// innermost state, the same eventless steps and microstep limits — since a single region
/// leaves nothing to run beside it.
@Suite("Parallel regions: one region behaves as the machine alone")
struct ParallelModelTests {
    typealias Model = HierarchyModelTests
    /// The model's twelve states, then the parallel state and its one region.
    enum WS: Int, MachineSymbol { case s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, region, regions }

    static func wrapped(_ spec: Model.Spec) -> MachineDefinition<WS, Model.RE, Model.RC> {
        var definition = Model.definition(of: spec, symbol: { WS(rawValue: $0)! }, top: .region)
        definition.parallel(.regions) { _ in }
        definition.state(.region, in: .regions) { s in s.initial(.s0) }
        return definition
    }

    @Test("300 random nested machines alone and as the one region of a parallel state: the same journal after every event", arguments: 0..<PropertyCases.count(3))
    func oneRegion(batch: Int) throws {
        var regionSteps = 0
        defer { #expect(regionSteps > 1_000, "only \(regionSteps) transitions were compared") }
        for seed in UInt64(batch * 100)..<UInt64(batch * 100 + 100) {
            let spec = Model.generate(seed: seed)
            var alone = BareMachine(table: try Model.definition(of: spec).compile(), context: Model.RC())
            let table = try Self.wrapped(spec).compile()
            #expect(table.isParallelState(.regions))
            var inRegion = BareMachine(table: table, context: Model.RC())
            alone.start()
            inRegion.start()
            #expect(inRegion.context.journal == alone.context.journal, "seed \(seed) start\n\(spec)")
            var random = SplitMix64(seed: seed ^ 0x5151)
            for step in 0..<60 {
                let event = Model.RE(rawValue: random.below(Model.RE.allCases.count))!
                alone.context.journal = []
                inRegion.context.journal = []
                let expected = alone.send(event, at: .zero)
                let outcome = inRegion.send(event, at: .zero)
                if inRegion.context.journal != alone.context.journal || inRegion.state.rawValue != alone.state.rawValue
                    || outcome != expected || inRegion.statistics.microstepLimitHits != alone.statistics.microstepLimitHits
                    || inRegion.rememberedStates.map({ $0?.rawValue }) != alone.rememberedStates.map({ $0?.rawValue }) {
                    Issue.record("seed \(seed) step \(step) \(event): alone \(alone.context.journal) in \(alone.state), in a region \(inRegion.context.journal) in \(inRegion.state)\n\(spec)")
                    break
                }
                #expect(inRegion.isActive(.regions) && inRegion.isActive(.region))
                #expect(inRegion.activeStates.map(\.rawValue) == [alone.state.rawValue])
            }
            regionSteps += inRegion.statistics.transitions
            #expect(inRegion.statistics.eventlessSteps == alone.statistics.eventlessSteps, "seed \(seed)")
        }
    }
}
