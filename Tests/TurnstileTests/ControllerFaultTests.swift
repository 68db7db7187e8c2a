import ControllerFSM
import ControllerFSMSim
import Testing
import Turnstile

/// The controller on a chip having a bad day (the simulator's fault hooks): a failed relay
/// write, a failed read, a chip that vanishes. No counted coin is ever lost.
@Suite("Controller: chip faults")
struct ControllerFaultTests {
    func started() throws -> (TurnstileSimulation, SimulationRecorder) {
        let recorder = SimulationRecorder()
        let simulation = try TurnstileSimulation(board: .defaultSim, reporter: recorder)
        try simulation.start()
        return (simulation, recorder)
    }

    let lockLine = GPIOLineOffset(4)   // boards/sim.toml: [outputs.lock] line = 4

    @Test("a relay write that fails is a mechanism fault: broken, the alarm sounds, the coin stays counted")
    func failedRelayWrite() throws {
        let (simulation, _) = try started()
        simulation.chip.failWrites(to: lockLine)
        try simulation.perform(.coin, at: .zero + .seconds(1))
        try simulation.advance(through: .zero + .seconds(2))
        let controller = simulation.controller
        #expect(controller.outputWriteFailures >= 1)
        #expect(controller.state == .broken, "releasing the arm failed, so the turnstile cannot serve")
        #expect(controller.counters.coins == 1 && controller.counters.faults == 1)
        #expect(controller.counters.expiredCredits == 1, "the paid credit is accounted for, not lost")
        #expect(controller.output(.alarm) == true)
        #expect(simulation.chip.outputValue(of: lockLine) == true, "the arm was never released")
    }

    @Test("a failed read is reported, and the edges it did not deliver are handled on the next call")
    func failedReadLosesNothing() throws {
        let (simulation, _) = try started()
        try simulation.perform(.coin, at: .zero + .seconds(1))
        simulation.chip.advance(to: .zero + .seconds(1))
        simulation.chip.failNextReads(1)
        #expect(throws: GPIOError.self) { try simulation.controller.process(now: .zero + .seconds(1)) }
        try simulation.advance(through: .zero + .seconds(2))
        #expect(simulation.controller.counters.coins == 1)
        #expect(simulation.controller.state == .unlocked)
    }

    @Test("a chip found gone by a write stops the run with an error naming it; what was counted stays")
    func chipGone() throws {
        let (simulation, _) = try started()
        try simulation.perform(.coin, at: .zero + .seconds(1))
        try simulation.advance(through: .zero + .seconds(2))
        simulation.chip.disappear()
        try simulation.perform(.fault, at: .zero + .seconds(3))   // broken: the outputs must change
        #expect(simulation.controller.outputWriteFailures > 0)
        do {
            try simulation.advance(through: .zero + .seconds(4))
            Issue.record("expected the vanished chip to stop the run")
        } catch {
            #expect("\(error)".contains(simulation.chip.info.name), "the message names the chip: \(error)")
        }
        #expect(simulation.controller.counters.coins == 1, "the coin counted before the chip vanished is kept")
    }

    @Test("edges the chip's event buffer dropped are counted as lost, never silently ignored")
    func lostEdgesAreCounted() throws {
        let clock = ManualClock()
        // One event per line in the chip's buffer: a burst of bounce overflows it, as a kernel
        // buffer does when the reader falls behind.
        let chip = SimChip(
            label: "turnstile-sim", lines: ["COIN", "PUSH", "SERVICE", "EMERGENCY", nil, nil, nil, nil].map { SimLine($0, activeLow: true) },
            clock: clock, eventBufferCapacityPerLine: 1)
        let controller = try TurnstileController(chip: chip, board: .defaultSim)
        try controller.start(at: .zero)
        #expect(controller.lostEdges == 0)
        chip.schedulePulse(line: 0, at: .zero + .milliseconds(100), width: .milliseconds(50),
                           bounceEdges: 4, bounceWindow: .milliseconds(3))
        chip.advance(to: .zero + .milliseconds(200))
        try controller.process(now: .zero + .milliseconds(200))
        #expect(controller.lostEdges > 0, "the dropped edges show as a gap in the sequence numbers")
    }
}
