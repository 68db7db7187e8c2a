import ControllerFSM
import ControllerHost
import ControllerSimulation
import ControllerTestSupport
import Testing

/// An application whose machine has two parallel regions (a crossing's lights, and a lamp that
/// flashes beside them), in the simulator: `expect state NAME` holds when NAME is active in any
/// region, and a failed expectation names every region's configuration.
@Suite("An application with parallel regions in the simulator")
struct RegionsApplicationTests {
    enum CrossingState: Int, MachineSymbol { case crossing, lights, carsGo, pedsGo, flasher, dark, lit }
    enum CrossingEvent: Int, MachineSymbol { case button, tick }
    struct CrossingContext: Sendable { var requests = 0 }
    struct CrossingSettings: Hashable, Sendable { var unused = Duration.seconds(1) }

    enum Crossing: ControllerApplication {
        typealias State = CrossingState
        typealias Event = CrossingEvent
        typealias Context = CrossingContext
        typealias Settings = CrossingSettings
        static var name: String { "crossing" }
        static let table: TransitionTable<CrossingState, CrossingEvent, CrossingContext> = {
            var definition = MachineDefinition<CrossingState, CrossingEvent, CrossingContext>(initial: .crossing)
            definition.parallel(.crossing) { _ in }
            definition.state(.lights, in: .crossing) { s in s.initial(.carsGo) }
            definition.state(.carsGo, in: .lights) { s in s.on(.button, to: .pedsGo) { c, _ in c.requests += 1 } }
            definition.state(.pedsGo, in: .lights) { s in s.on(.button, to: .carsGo) }
            definition.state(.flasher, in: .crossing) { s in s.initial(.dark) }
            definition.state(.dark, in: .flasher) { s in s.on(.tick, to: .lit) }
            definition.state(.lit, in: .flasher) { s in s.on(.tick, to: .dark) }
            do { return try definition.compile() } catch { fatalError("\(error)") }
        }()
        static var settings: SettingsDeclaration<Self> {
            SettingsDeclaration(section: "crossing", defaults: CrossingSettings(), keys: [.duration("unused", \.unused)])
        }
        static func makeContext(_ settings: CrossingSettings) -> CrossingContext { CrossingContext() }
        static func apply(_ settings: CrossingSettings, to context: inout CrossingContext) {}
        static var inputs: [InputDeclaration<Self>] {
            [
                .pulse("button", sends: .button, required: true, simulatedPulse: .milliseconds(100)),
                .pulse("tick", sends: .tick, required: true, simulatedPulse: .milliseconds(100)),
            ]
        }
        static var outputs: [OutputDeclaration<Self>] {
            [OutputDeclaration("walk", required: true, initial: false) { state, _ in state == .pedsGo }]
        }
        static var counters: [CounterDeclaration<Self>] { [CounterDeclaration("requests") { $0.requests }] }
        static var commands: [DirectCommand<Self>] { [] }

        static func board() throws -> Board<Self> {
            try Board<Self>.parse("""
                [board]
                name = "crossing"
                backend = "sim"
                chip = "crossing-sim"

                [inputs.button]
                line = "BUTTON"

                [inputs.tick]
                line = "TICK"

                [outputs.walk]
                line = "WALK"
                """, file: "crossing.toml")
        }
    }

    func run(_ script: String) throws -> [String] {
        try expectationFailures(of: script, on: Crossing.board(), file: "crossing.txt")
    }

    @Test("expect state holds for a state of either region, and for the regions and the parallel state around them")
    func expectInEveryRegion() throws {
        #expect(try run("""
            1 expect state carsGo
            1 expect state dark
            1 expect state flasher
            1 expect state crossing
            2 pulse tick
            3 expect state lit
            3 expect state carsGo
            4 pulse button
            5 expect state pedsGo
            5 expect state lit
            5 expect output walk 1
            6 end
            """) == [])
    }

    @Test("a failed expectation names every region's configuration")
    func failureNamesEveryRegion() throws {
        #expect(try run("""
            2 pulse tick
            3 expect state dark
            3 expect state pedsGo
            4 end
            """) == [
                "expected state dark, but the crossing is carsGo in lights in crossing, and lit in flasher in crossing",
                "expected state pedsGo, but the crossing is carsGo in lights in crossing, and lit in flasher in crossing",
            ])
    }
}
