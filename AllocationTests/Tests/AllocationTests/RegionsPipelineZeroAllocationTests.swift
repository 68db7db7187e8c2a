import AllocationCounting
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import Synchronization
import Testing

/// A controller whose machine has two parallel regions, an output driven from the second region
/// and an interlock that yields by it, read from the whole configuration: edge to relay, it
/// allocates nothing once warmed up (the configuration the host hands those declarations reads
/// the machine's own storage).
@Suite("Regions pipeline zero allocation", .enabled(if: isOptimizedBuild && canCountAllocations, "allocation counts are meaningful on an optimised build: swift test -c release --package-path AllocationTests"))
struct RegionsPipelineZeroAllocationTests {
    enum LampState: Int, MachineSymbol { case panel, mode, idle, armed, blinker, dark, lit }
    enum LampEvent: Int, MachineSymbol { case button, tick }
    struct LampSettings: Hashable, Sendable { var unused = Duration.seconds(1) }

    /// A panel: a button arms and disarms it (the first region), a tick blinks a lamp (the
    /// second); the lamp lights only while armed and lit, and shares an interlock with the
    /// `ready` lamp that yields while the blinker is lit.
    enum Panel: ControllerApplication {
        typealias State = LampState
        typealias Event = LampEvent
        typealias Context = Int
        typealias Settings = LampSettings
        static var name: String { "panel" }
        static let table: TransitionTable<LampState, LampEvent, Int> = {
            var definition = MachineDefinition<LampState, LampEvent, Int>(initial: .panel)
            definition.parallel(.panel) { _ in }
            definition.state(.mode, in: .panel) { s in s.initial(.idle) }
            definition.state(.idle, in: .mode) { s in s.on(.button, to: .armed) }
            definition.state(.armed, in: .mode) { s in s.on(.button, to: .idle) }
            definition.state(.blinker, in: .panel) { s in s.initial(.dark) }
            definition.state(.dark, in: .blinker) { s in s.on(.tick, to: .lit) }
            definition.state(.lit, in: .blinker) { s in s.on(.tick, to: .dark) }
            do { return try definition.compile() } catch { fatalError("\(error)") }
        }()
        static var settings: SettingsDeclaration<Self> {
            SettingsDeclaration(section: "panel", defaults: LampSettings(), keys: [.duration("unused", \.unused)])
        }
        static func makeContext(_ settings: LampSettings) -> Int { 0 }
        static func apply(_ settings: LampSettings, to context: inout Int) {}
        static let inputs: [InputDeclaration<Self>] = [
            .pulse("button", sends: .button, required: true, simulatedPulse: .milliseconds(100)),
            .pulse("tick", sends: .tick, required: true, simulatedPulse: .milliseconds(100)),
        ]
        static let outputs: [OutputDeclaration<Self>] = [
            OutputDeclaration("ready", required: true, initial: false, interlock: "lamps") { state, _ in state == .armed },
            OutputDeclaration("lamp", required: true, initial: false, interlock: "lamps") { active, _ in
                active.isActive(.armed) && active.isActive(.lit)
            },
        ]
        static let interlocks: [InterlockDeclaration<Self>] = [
            InterlockDeclaration("lamps", yieldsTo: "the blinker lit") { active, _ in active.isActive(.lit) },
        ]
        static var counters: [CounterDeclaration<Self>] { [] }
        static var commands: [DirectCommand<Self>] { [] }
    }

    final class Writes: Sendable {
        let ready = Atomic<Int>(0)
        let lamp = Atomic<Int>(0)
    }

    static let board = """
        [board]
        name = "panel"
        backend = "sim"
        chip = "panel-sim"

        [inputs.button]
        line = "BUTTON"

        [inputs.tick]
        line = "TICK"

        [outputs.ready]
        line = "READY"

        [outputs.lamp]
        line = "LAMP"
        """

    @Test("20,000 bouncy pulses through a two-region controller, its lamp and interlock read from the second region, allocate nothing")
    func secondRegionOutputs() throws {
        let board = try Board<Panel>.parse(Self.board, file: "panel.toml")
        let clock = ManualClock()
        let writes = Writes()
        let chip = SimChip(name: "simchip0", label: "panel-sim", lines: ["BUTTON", "TICK", "READY", "LAMP"], clock: clock, seed: 3) { [writes] change in
            switch change.offset.rawValue {
            case 2: writes.ready.add(1, ordering: .relaxed)
            case 3: writes.lamp.add(1, ordering: .relaxed)
            default: break
            }
        }
        let controller = try Controller<Panel, SimChip>(chip: chip, board: board)
        try controller.start(at: .zero)
        var roundStart = MachineInstant.zero
        // One round of 4 s: arm, blink on and off, disarm. The lamp lights once a round (armed
        // and lit, the interlock yielding to the lit blinker beside `ready`).
        func round() throws {
            let width = Duration.milliseconds(100)
            chip.schedulePulse(line: GPIOLineOffset(0), at: roundStart, width: width, bounceEdges: 4, bounceWindow: .milliseconds(3))
            chip.schedulePulse(line: GPIOLineOffset(1), at: roundStart + .seconds(1), width: width, bounceEdges: 4, bounceWindow: .milliseconds(3))
            chip.schedulePulse(line: GPIOLineOffset(1), at: roundStart + .seconds(2), width: width, bounceEdges: 4, bounceWindow: .milliseconds(3))
            chip.schedulePulse(line: GPIOLineOffset(0), at: roundStart + .seconds(3), width: width, bounceEdges: 4, bounceWindow: .milliseconds(3))
            roundStart = roundStart + .seconds(4)
            try runTurns(of: controller, on: chip, until: roundStart)
        }
        for _ in 0..<20 { try round() }
        let before = (ready: writes.ready.load(ordering: .relaxed), lamp: writes.lamp.load(ordering: .relaxed))
        let rounds = 5_000

        malloc_counter_start()
        for _ in 0..<rounds { try round() }
        let allocations = malloc_counter_stop()

        #expect(allocations == 0, "the event path allocated \(allocations) times over \(rounds * 4) bouncy pulses")
        #expect(writes.lamp.load(ordering: .relaxed) - before.lamp == 2 * rounds, "the lamp: on when lit while armed, off when dark")
        #expect(writes.ready.load(ordering: .relaxed) - before.ready == 2 * rounds, "ready: on when armed, off when disarmed")
        #expect(controller.activeStates == [.idle, .dark])
        #expect(controller.outputOverrides == 0, "the interlock yielded each time both lamps were on")
    }
}
