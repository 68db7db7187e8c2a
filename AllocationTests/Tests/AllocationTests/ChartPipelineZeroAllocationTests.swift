import AllocationCounting
import ControllerChart
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import Synchronization
import Testing

/// The door chart's own space, for this test process.
enum AllocationDoorChart: ChartSpace { static let slot = ChartSlot<AllocationDoorChart>() }

/// A controller made of an SCXML chart (Examples/Charts/door) and its binding at load: edge to
/// relay, through the chart's conditions, its `<assign>`, its timers (delayed sends and
/// cancels), a level kept in a `<data>` and the binding's outputs, precondition and invariant,
/// it allocates nothing once warmed up.
@Suite("Chart pipeline zero allocation", .enabled(if: isOptimizedBuild && canCountAllocations, "allocation counts are meaningful on an optimised build: swift test -c release --package-path AllocationTests"))
struct ChartPipelineZeroAllocationTests {
    typealias Door = ChartController<AllocationDoorChart>

    /// The repository's root, from this file (AllocationTests/Tests/AllocationTests/).
    static let repository: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    static let board = """
        [board]
        name = "door"
        backend = "sim"
        chip = "door-sim"

        [inputs.button]
        line = "BUTTON"

        [inputs.obstacle]
        line = "OBSTACLE"

        [inputs.fire]
        line = "FIRE"

        [outputs.motor_open]
        line = "MOTOR_OPEN"

        [outputs.motor_close]
        line = "MOTOR_CLOSE"
        """

    final class Writes: Sendable {
        let open = Atomic<Int>(0)
        let close = Atomic<Int>(0)
    }

    @Test("5,000 door cycles of a chart controller — button, travel, hold, the beam, close — allocate nothing")
    func chartDoorCycles() throws {
        try ChartLoader.load(bindingFile: Self.repository + "/Examples/Charts/door/door.toml", into: AllocationDoorChart.self)
        let board = try Board<Door>.parse(Self.board, file: "door.toml")
        let clock = ManualClock()
        let writes = Writes()
        let chip = SimChip(name: "simchip0", label: "door-sim", lines: ["BUTTON", "OBSTACLE", "FIRE", "MOTOR_OPEN", "MOTOR_CLOSE"], clock: clock, seed: 5) { [writes] change in
            switch change.offset.rawValue {
            case 3: writes.open.add(1, ordering: .relaxed)
            case 4: writes.close.add(1, ordering: .relaxed)
            default: break
            }
        }
        let controller = try Controller<Door, SimChip>(chip: chip, board: board)
        try controller.start(at: .zero)
        var roundStart = MachineInstant.zero
        // One round of 20 s: a press opens (2 s of travel), the beam is broken from 3 s to 8 s,
        // so the hold that ends at 7 s finds it broken and starts again (the guard, the exit's
        // cancel, the entry's send), the door closes at 12 s and is closed at 14 s.
        func round() throws {
            let width = Duration.milliseconds(100)
            chip.schedulePulse(line: GPIOLineOffset(0), at: roundStart, width: width, bounceEdges: 4, bounceWindow: .milliseconds(3))
            chip.schedulePulse(line: GPIOLineOffset(1), at: roundStart + .seconds(3), width: .seconds(5), bounceEdges: 4, bounceWindow: .milliseconds(3))
            roundStart = roundStart + .seconds(20)
            try runTurns(of: controller, on: chip, until: roundStart)
        }
        for _ in 0..<20 { try round() }
        let before = (open: writes.open.load(ordering: .relaxed), close: writes.close.load(ordering: .relaxed))
        let rounds = 5_000

        malloc_counter_start()
        for _ in 0..<rounds { try round() }
        let allocations = malloc_counter_stop()

        #expect(allocations == 0, "the event path allocated \(allocations) times over \(rounds) door cycles")
        #expect(writes.open.load(ordering: .relaxed) - before.open == 2 * rounds, "motor_open: on while opening, off at open")
        #expect(writes.close.load(ordering: .relaxed) - before.close == 2 * rounds, "motor_close: on while closing, off at closed")
        #expect(controller.activeStates.map(\.name) == ["closed"])
    }
}
