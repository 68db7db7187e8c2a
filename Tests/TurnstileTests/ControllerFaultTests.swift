import ControllerTestSupport
import TurnstileTestSupport
import ControllerFSM
import ControllerFSMSim
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

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

    @Test("a chip found gone stops the run with an error naming it; what was counted stays")
    func chipGone() throws {
        let (simulation, _) = try started()
        try simulation.perform(.coin, at: .zero + .seconds(1))
        try simulation.advance(through: .zero + .seconds(2))
        simulation.chip.disappear()
        do {
            // A command reads the pending edges first: the read finds the chip gone.
            try simulation.perform(.fault, at: .zero + .seconds(3))
            Issue.record("expected the vanished chip to stop the run")
        } catch {
            #expect("\(error)".contains(simulation.chip.info.name), "the message names the chip: \(error)")
        }
        #expect(throws: GPIOError.self) { try simulation.advance(through: .zero + .seconds(4)) }
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

    @Test("a chip that vanishes and comes back: the controller requests its lines again, keeps its counts, and takes what changed meanwhile")
    func chipComesBack() throws {
        let (simulation, _) = try started()
        let controller = simulation.controller
        let chip = simulation.chip
        try simulation.perform(.coin, at: .zero + .seconds(1))
        try simulation.advance(through: .zero + .seconds(2))
        #expect(controller.state == .unlocked && controller.credit == 1)
        chip.disappear()
        // The fire alarm goes on while the chip is away: nobody sees the edge happen.
        try simulation.perform(.emergency(on: true), at: .zero + .seconds(3))
        chip.advance(to: .zero + .seconds(4))
        #expect(throws: GPIOError.self) { try controller.process(now: .zero + .seconds(4)) }
        chip.reappear()
        #expect(chip.consumer(of: lockLine) == nil, "a re-plugged chip has every line free")
        try controller.reattach(to: chip, at: .zero + .seconds(5))
        #expect(chip.consumer(of: lockLine) == "turnstiled", "the lines are requested again")
        #expect(controller.state == .emergency, "the alarm that went on while the chip was away is taken on return")
        #expect(chip.outputValue(of: lockLine) == false, "the arm is released for the evacuation")
        #expect(controller.counters.coins == 1, "the coin counted before the chip vanished is kept")
        #expect(controller.counters.expiredCredits == 1, "the credit the emergency voided is accounted for")
        // And it works as before: the alarm ends, a coin unlocks.
        try simulation.perform(.emergency(on: false), at: .zero + .seconds(6))
        try simulation.perform(.coin, at: .zero + .seconds(7))
        try simulation.advance(through: .zero + .seconds(8))
        #expect(controller.state == .unlocked && controller.counters.coins == 2)
        #expect(chip.outputValue(of: lockLine) == false)
    }

    @Test("requests made before the chip vanished stay dead after it comes back")
    func oldRequestsStayDead() throws {
        let chip = SimChip(label: "x", lines: [SimLine("A"), SimLine("B")], clock: ManualClock())
        let old = try chip.requestOutputs([OutputLineSettings(offset: 1)], consumer: "old")
        chip.disappear()
        chip.reappear()
        #expect(throws: GPIOError.self) { try old.write(true, at: 0) }
        let fresh = try chip.requestOutputs([OutputLineSettings(offset: 1)], consumer: "new")
        try fresh.write(true, at: 0)
        old.release()
        #expect(chip.consumer(of: 1) == "new", "releasing a dead request frees nothing")
    }

    @Test("the ledger holds the counters after every step, with its cause; the input log every debounced edge")
    func ledgerAndInputLog() throws {
        let ledger = TurnstileController<SimChip>.Ledger(capacity: 64)
        let inputs = TurnstileController<SimChip>.InputLog(capacity: 64)
        let clock = ManualClock()
        let simulated = SimChip(
            label: "turnstile-sim", lines: ["COIN", "PUSH", "SERVICE", "EMERGENCY", nil, nil, nil, nil].map { SimLine($0, activeLow: true) },
            clock: clock)
        let controller = try TurnstileController(chip: simulated, board: .defaultSim, ledger: ledger, inputLog: inputs)
        try controller.start(at: .zero)
        simulated.schedulePulse(line: 0, at: .zero + .seconds(1), width: .milliseconds(50))
        simulated.advance(to: .zero + .seconds(2))
        try controller.process(now: .zero + .seconds(2))
        try controller.send(.fault, at: .zero + .seconds(3))
        var entries: [LedgerEntry<TurnstileApplication>] = []
        ledger.drain { entries.append($0) }
        #expect(entries.first?.state == .locked && entries.first?.cause == nil, "start settles the outputs: one entry")
        #expect(entries.contains { $0.cause == .edge(.coin, active: true) && $0.state == .unlocked && $0.turnstileCounters.coins == 1 && $0.credit == 1 })
        #expect(entries.last?.cause == .command(.fault) && entries.last?.state == .broken)
        #expect(entries.last?.turnstileCounters.expiredCredits == 1 && entries.last?.credit == 0)
        var taken: [ControllerInput<TurnstileApplication>] = []
        inputs.drain { taken.append($0.input) }
        #expect(taken == [.edge(.coin, active: true), .edge(.coin, active: false), .command(.fault)])
    }

    @Test("a failed output write goes to the input log: a recording must say no replay reproduces it")
    func failedWriteIsLogged() throws {
        let inputs = TurnstileController<SimChip>.InputLog(capacity: 64)
        let simulated = SimChip(
            label: "turnstile-sim", lines: ["COIN", "PUSH", "SERVICE", "EMERGENCY", nil, nil, nil, nil].map { SimLine($0, activeLow: true) },
            clock: ManualClock())
        let controller = try TurnstileController(chip: simulated, board: .defaultSim, inputLog: inputs)
        try controller.start(at: .zero)
        simulated.failWrites(to: lockLine)
        try controller.send(.emergencyOn, at: .zero + .seconds(1))
        var taken: [ControllerInput<TurnstileApplication>] = []
        inputs.drain { taken.append($0.input) }
        #expect(taken.first == .command(.emergencyOn))
        #expect(taken.contains(.outputWriteFailed(.lock)), "\(taken)")
    }

    @Test("retiming takes the new relock timeout for the next timer and a new fail mode")
    func retime() throws {
        let (simulation, _) = try started()
        var settings = simulation.board.settings
        settings.relockTimeout = .seconds(1)
        settings.failMode = .safe
        simulation.controller.retime(settings, at: .zero)
        try simulation.perform(.coin, at: .zero + .seconds(1))
        try simulation.advance(through: .zero + .milliseconds(2_500))
        #expect(simulation.controller.state == .locked, "the credit expired after the new 1 s timeout")
        simulation.controller.driveStopLevels(at: .zero + .seconds(3))
        #expect(simulation.chip.outputValue(of: lockLine) == false, "fail_mode safe releases the arm")
    }
}
