import ControllerFSM
import ControllerFSMSim
import ControllerHost
import ControllerTestSupport
import Testing

/// A machine step that reaches a bound of `MachineLimits` has not settled: the controller puts
/// every wired output at its fail-safe level (its stop level, or its safe initial level when it
/// declares none) and holds it there, says what repeated, and goes on taking inputs and
/// counting them.
@Suite("A machine that does not settle: the controller's fail safe", .timeLimit(.minutes(Emulation.timeLimitMinutes(10))))
struct UnsettledMachineTests {
    static func started() throws -> (SimChip, Controller<Runaway, SimChip>) {
        let chip = SimChip(label: "runaway-sim", lines: [SimLine("BUTTON"), SimLine("PUMP"), SimLine("BEACON")], clock: ManualClock())
        let controller = try Controller<Runaway, SimChip>(chip: chip, board: try Runaway.board())
        try controller.start(at: .zero)
        return (chip, controller)
    }

    @Test("the outputs go to their fail-safe levels and stay there; the report names the cycle")
    func failSafe() throws {
        let (chip, controller) = try Self.started()
        try controller.send(.start, at: .zero + .milliseconds(10))
        #expect(controller.output("pump") == true && controller.output("beacon") == true)
        #expect(controller.unsettledSteps == 0 && !controller.holdsFailSafe)

        try controller.send(.spin, at: .zero + .milliseconds(20))
        #expect(controller.unsettledSteps == 1)
        #expect(controller.holdsFailSafe)
        #expect(controller.output("pump") == false, "its stop level")
        #expect(controller.output("beacon") == false, "no stop level: its safe initial level")
        #expect(chip.outputValue(of: GPIOLineOffset(1)) == false && chip.outputValue(of: GPIOLineOffset(2)) == false, "on the lines themselves")
        let report = try #require(controller.unsettledReport)
        #expect(report.contains("looping --again--> looping"), "\(report)")
        #expect(report.contains("held at its stop level"), "\(report)")
        #expect(controller.state == .looping)

        // The machine still takes inputs and counts them; the outputs do not follow it.
        try controller.send(.stop, at: .zero + .milliseconds(30))
        try controller.send(.start, at: .zero + .milliseconds(40))
        #expect(controller.state == .pumping && controller.context.starts == 2)
        #expect(controller.output("pump") == false && controller.output("beacon") == false)
        #expect(controller.override(of: "pump") == .stopLevel, "the host says it holds what the machine asks on")
        #expect(controller.unsettledSteps == 1, "a step that settled is not reported")
        try controller.send(.spin, at: .zero + .milliseconds(50))
        #expect(controller.unsettledSteps == 2, "each unsettled step is counted")
    }

    @Test("a chip that comes back after the fail safe is requested at the fail-safe levels, not the machine's")
    func reattachKeepsTheFailSafe() throws {
        let (chip, controller) = try Self.started()
        try controller.send(.start, at: .zero + .milliseconds(10))
        try controller.send(.spin, at: .zero + .milliseconds(20))
        try controller.send(.stop, at: .zero + .milliseconds(30))
        try controller.send(.start, at: .zero + .milliseconds(40))
        #expect(controller.state == .pumping && controller.holdsFailSafe, "the machine asks pump and beacon on")
        chip.disappear()
        chip.reappear()
        try controller.reattach(to: chip, at: .zero + .milliseconds(50))
        #expect(controller.output("pump") == false && controller.output("beacon") == false)
        #expect(chip.outputValue(of: GPIOLineOffset(1)) == false && chip.outputValue(of: GPIOLineOffset(2)) == false)
    }

    @Test("a machine that settles never holds its outputs")
    func settledMachine() throws {
        let (_, controller) = try Self.started()
        for step in 0..<20 {
            try controller.send(step % 2 == 0 ? .start : .stop, at: .zero + .milliseconds(Int64(step)))
        }
        #expect(controller.unsettledSteps == 0 && controller.unsettledReport == nil && !controller.holdsFailSafe)
        #expect(controller.output("pump") == false)
        try controller.send(.start, at: .zero + .milliseconds(30))
        #expect(controller.output("pump") == true)
    }
}
