import ControllerFSM
import ControllerHost
import ControllerSimulation
import ControllerTestSupport
import Testing

/// An application whose machine has two parallel regions (a crossing's lights, and a lamp that
/// flashes beside them), in the simulator: `expect state NAME` holds when NAME is active in any
/// region, and a failed expectation names every region's configuration; the lamp's output, the
/// walk output's precondition, the interlock between them and an invariant follow the second
/// region, read from the whole configuration (nothing copied into the context).
@Suite("An application with parallel regions in the simulator")
struct RegionsApplicationTests {
    enum CrossingState: Int, MachineSymbol { case crossing, lights, carsGo, pedsGo, flasher, dark, lit, bright }
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
            definition.state(.lit, in: .flasher) { s in s.on(.tick, to: .bright) }
            definition.state(.bright, in: .flasher) { s in s.on(.tick, to: .dark) }
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
            [
                OutputDeclaration(
                    "walk", required: true, initial: false, interlock: "lamps",
                    requires: OutputPrecondition("the flasher is not bright") { active, _ in !active.isActive(.bright) }
                ) { state, _ in state == .pedsGo },
                OutputDeclaration("lamp", initial: false, interlock: "lamps") { active, _ in active.isAnyActive([.lit, .bright]) },
            ]
        }
        static var interlocks: [InterlockDeclaration<Self>] {
            [InterlockDeclaration("lamps", yieldsTo: "a bright flash") { active, _ in active.isActive(.bright) }]
        }
        static var invariants: [Invariant<Self>] {
            [Invariant("fewer than two requests while the lamp is lit") { active, context in !active.isActive(.lit) || context.requests < 2 }]
        }
        static var counters: [CounterDeclaration<Self>] { [CounterDeclaration("requests") { $0.requests }] }
        static var stateCounts: [StateCount<Self>] { [.entering(.lit, counts: "flashes"), .leaving(.flasher, counts: "flasherOff")] }
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

                [outputs.lamp]
                line = "LAMP"
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
            5 expect output lamp 1
            5 expect counter flashes 1
            6 pulse tick
            7 pulse tick
            8 pulse tick
            9 expect counter flashes 2
            9 expect counter flasherOff 0
            10 end
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

    @Test("an output, a precondition, an interlock and an invariant that read the second region follow it")
    func declarationsFollowTheSecondRegion() throws {
        let events = try simulationEvents(of: """
            2 pulse tick
            4 pulse tick
            6 pulse tick
            8 pulse button
            10 pulse tick
            12 pulse tick
            14 pulse tick
            16 pulse button
            18 pulse button
            20 pulse button
            21 pulse tick
            22 end
            """, on: Crossing.board(), file: "crossing.txt")
        #expect(events == [
            "0 walk=0", "0 lamp=0",
            // The lamp follows the flasher (lit, bright, dark); the first region has not moved.
            "2.012 lamp=1", "6.012 lamp=0",
            // Walk on; the lamp, lit again, is held off by the interlock (it yields only when
            // bright), and the interlock's exclusion is broken: the machine asks both.
            "8.012 walk=1",
            "10.012 lamp: held off by its interlock",
            "10.012 the outputs of interlock lamps (walk, lamp) are never asked on together, except in a bright flash, in pedsGo and lit",
            // Bright: the interlock yields, the lamp is on beside walk, and walk's precondition
            // (the flasher is not bright) breaks.
            "12.012 lamp=1",
            "12.012 walk on only when the flasher is not bright, in pedsGo and bright",
            "14.012 lamp=0", "16.012 walk=0", "18.012 walk=1", "20.012 walk=0",
            // A second request made; lit again: the invariant over the second region and the
            // context breaks.
            "21.012 lamp=1",
            "21.012 fewer than two requests while the lamp is lit, in carsGo and lit",
], "\(events)")
    }
}
