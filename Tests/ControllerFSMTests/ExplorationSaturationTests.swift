import ControllerFSM
import Testing

/// `explore(depth:)` says whether it saturated: a search that reaches its depth still finding new
/// configurations has checked only that depth, and says so.
@Suite("explore() reports saturation")
struct ExplorationSaturationTests {
    enum S: Int, MachineSymbol { case idle, busy }
    enum E: Int, MachineSymbol { case go, stop }
    struct C { var count = 0 }

    static func started() throws -> BareMachine<S, E, C> {
        var d = MachineDefinition<S, E, C>(initial: .idle)
        d.state(.idle) { s in s.on(.go, to: .busy) { c, _ in c.count += 1 } }
        d.state(.busy) { s in s.on(.stop, to: .idle) }
        var machine = BareMachine(table: try d.compile(), context: C())
        machine.start()
        return machine
    }

    @Test("a key that only grows never saturates, and the report says so")
    func runawayCounter() throws {
        let report = try Self.started().explore(depth: 20, events: E.allCases, key: { [$0.state.rawValue, $0.context.count] }, invariant: { _ in nil })
        #expect(!report.isSaturated && report.newAtLastLevel > 0, "\(report)")
        #expect("\(report)".contains("not saturated"), "\(report)")
    }

    @Test("a key over what is bounded saturates before the depth")
    func bounded() throws {
        let report = try Self.started().explore(depth: 20, events: E.allCases, key: { $0.state }, invariant: { _ in nil })
        #expect(report.isSaturated && report.depthReached < 20 && report.configurations == 2, "\(report)")
        #expect(!"\(report)".contains("not saturated"), "\(report)")
    }
}
