import ControllerTestSupport
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import ControllerSimulation
import Testing

/// Break before make: two outputs in one interlock are never on together on the chip, however
/// the application orders them, and the host keeps declaration order for everything else.
@Suite("Output interlocks: break before make on the simulated chip")
struct OutputInterlockTests {
    /// A shuttle controller on a simulated chip, and every write the chip saw, `role=0|1`.
    final class Rig<App: ShuttleApplication> {
        let clock = ManualClock()
        let chip: SimChip
        let controller: Controller<App, SimChip>
        let log: Log

        final class Log: @unchecked Sendable {
            var writes: [String] = []
            var on: Set<String> = []
            var bothOn = false
        }

        init() throws {
            let log = Log()
            let board = try App.board()
            let simulated = SimulatedBoard<App>(board: board, clock: clock, seed: 1) { change in
                let role = change.name ?? "?"
                log.writes.append("\(role.lowercased())=\(change.value ? 1 : 0)")
                if change.value { log.on.insert(role) } else { log.on.remove(role) }
                if log.on.count > 1 { log.bothOn = true }
            }
            chip = simulated.chip
            self.log = log
            controller = try Controller(chip: chip, board: board)
            try controller.start(at: .zero)
        }

        func line(_ name: String) throws -> GPIOLineOffset { try chip.offset(ofLineNamed: name) }
    }

    static func swaps<App: ShuttleApplication>(_: App.Type) throws -> Rig<App> {
        let rig = try Rig<App>()
        #expect(rig.log.writes.last == "forward=1", "the start drives forward")
        rig.log.writes = []
        try rig.controller.send(.swap, at: .zero + .seconds(1))
        try rig.controller.send(.swap, at: .zero + .seconds(2))
        return rig
    }

    @Test("forward declared first: each swap turns the running motor off before the other on")
    func forwardFirst() throws {
        let rig = try Self.swaps(ShuttleForwardFirst.self)
        #expect(rig.log.writes == ["forward=0", "backward=1", "backward=0", "forward=1"])
        #expect(!rig.log.bothOn)
    }

    @Test("backward declared first: the same writes, in the same order")
    func backwardFirst() throws {
        let rig = try Self.swaps(ShuttleBackwardFirst.self)
        #expect(rig.log.writes == ["forward=0", "backward=1", "backward=0", "forward=1"])
        #expect(!rig.log.bothOn)
    }

    @Test("without an interlock the host writes in declaration order: both motors on for a moment")
    func uninterlocked() throws {
        let rig = try Self.swaps(ShuttleUninterlocked.self)
        #expect(rig.log.writes == ["backward=1", "forward=0", "backward=0", "forward=1"])
        #expect(rig.log.bothOn)
    }

    @Test("a motor that cannot be turned off keeps the other one off", arguments: [false, true])
    func failedBreak(backwardFirst: Bool) throws {
        func check<App: ShuttleApplication>(_: App.Type) throws {
            let rig = try Rig<App>()
            rig.chip.failWrites(to: try rig.line("FORWARD"))
            try rig.controller.send(.swap, at: .zero + .seconds(1))
            #expect(rig.controller.state == .backward)
            #expect(rig.controller.output("backward") == false)
            #expect(!rig.log.bothOn)
            // Once the line takes writes again, the next step makes what was held back.
            rig.chip.failWrites(to: try rig.line("FORWARD"), false)
            try rig.controller.send(.swap, at: .zero + .seconds(2))
            try rig.controller.send(.swap, at: .zero + .seconds(3))
            #expect(rig.controller.output("backward") == true && rig.controller.output("forward") == false)
            #expect(!rig.log.bothOn)
        }
        if backwardFirst { try check(ShuttleBackwardFirst.self) } else { try check(ShuttleForwardFirst.self) }
    }
}
