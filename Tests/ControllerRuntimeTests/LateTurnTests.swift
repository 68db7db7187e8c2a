import ControllerFSM
import ControllerFSMSim
import ControllerHost
import ControllerSimulation
import ControllerTestSupport
import Testing

@testable import ControllerRuntime

/// A turn of the daemon's loop that comes late — a busy machine, or an emulated one, where the
/// loop wakes well after its deadline — takes the simulated board's edges, the controller's
/// deadlines and the plant's answers at their own instants, in order, as `simulate` does. Found
/// under qemu: barrierd's request at 0.5 s and its vehicle at 1.0 s reached the controller in
/// one late turn, before the arm had answered the request's motor, and the vehicle was ignored.
@Suite("The simulated board's late turns: everything at its own instant")
struct LateTurnTests {
    /// The shuttle with a button that reverses it: a pulse input whose event drives a motor the
    /// track answers, so what the controller sees after a button press depends on the track
    /// having moved between the steps.
    enum ButtonShuttle: ShuttleApplication {
        static let outputs = [motor("backward", on: .backward, interlock: "drive"), motor("forward", on: .forward, interlock: "drive")]
        typealias Plant = ShuttleTrack<Self>
        static var inputs: [InputDeclaration<Self>] {
            [.level("end", on: .arrived, off: .left, required: true), .pulse("button", sends: .swap, simulatedPulse: .milliseconds(100))]
        }
    }

    /// The shuttle's board with the button beside its lines, and a short track.
    static let boardAdditions = """
        [inputs.button]
        line = "BUTTON"
        debounce = "10ms"

        [sim]
        track_time = "300ms"
        """

    /// The shuttle runs forward from the start, reaches the end at 0.3 s and turns back; the
    /// button at 0.5 s sends it forward again from a third of the way, so it reaches the end
    /// again at about 0.7 s and turns back once more: three reversals and backward by 1 s, on
    /// time or late.
    static let script = """
        0.5 pulse button
        1.0 end
        """

    /// Plays the script to `until` in turns `turns` apart (a turn every millisecond is the loop
    /// on time; one turn at the end is a loop a second late), and returns the state and the
    /// reversals counted.
    static func play(turns: Duration, until end: MachineInstant) throws -> (ShuttleState, Int) {
        let board = try ButtonShuttle.board(sim: Self.boardAdditions)
        let scenario = try Scenario<ButtonShuttle>.parse(Self.script, file: "late.txt", vocabulary: Simulation<ButtonShuttle>.vocabulary(for: board))
        let writes = OutputWritesToPlant<ButtonShuttle>()
        let simulated = SimulatedBoard(board: board, clock: ManualClock(), seed: 1) { writes.forward($0) }
        let source = SimSource<ButtonShuttle>(board: board, chip: simulated.chip, inputOffsets: simulated.inputOffsets, script: scenario)
        writes.connect(source, roles: simulated.outputRoles)
        source.applyInitialLevels()
        let controller = try Controller<ButtonShuttle, SimChip>(chip: simulated.chip, board: board, completionClock: ManualClock())
        try controller.start(at: .zero)
        var now = MachineInstant.zero
        while now < end {
            now = Swift.min(now + turns, end)
            try source.advance(to: now, controller: controller)
            try controller.process(now: now)
        }
        return (controller.state, controller.count(named: "reversals") ?? -1)
    }

    @Test("one turn a second late ends where turns every millisecond end")
    func lateTurnMatchesOnTime() throws {
        let onTime = try Self.play(turns: .milliseconds(1), until: MachineInstant.zero + .seconds(1))
        #expect(onTime.0 == .backward && onTime.1 == 3, "on time: \(onTime)")
        let late = try Self.play(turns: .seconds(1), until: MachineInstant.zero + .seconds(1))
        #expect(late.0 == onTime.0 && late.1 == onTime.1, "one late turn: \(late), on time: \(onTime)")
        let ragged = try Self.play(turns: .milliseconds(370), until: MachineInstant.zero + .seconds(1))
        #expect(ragged.0 == onTime.0 && ragged.1 == onTime.1, "turns 370 ms apart: \(ragged), on time: \(onTime)")
    }
}
