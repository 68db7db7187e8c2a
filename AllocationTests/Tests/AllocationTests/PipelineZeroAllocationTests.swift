import AllocationCounting
import ControllerFSM
import ControllerFSMSim
import Synchronization
import Testing
import ControllerHost
import Turnstile

/// The whole event path — a bouncy pulse on a simulated line, the chip's edge buffer, the
/// debouncer, the machine, the relay writes, the trace, and the daemon's rings (the ledger a
/// store drains, the input log a flight recorder drains) — allocates nothing once warmed up, on
/// an optimised build as users ship it: `swift test -c release --package-path AllocationTests` (scripts/test.sh runs it).
@Suite("Pipeline zero allocation", .enabled(if: isOptimizedBuild && canCountAllocations, "allocation counts are meaningful on an optimised build: swift test -c release --package-path AllocationTests"))
struct PipelineZeroAllocationTests {
    /// Counts output writes as the chip reports them (the sink must be `Sendable`).
    final class Writes: Sendable {
        let lock = Atomic<Int>(0)
        let alarm = Atomic<Int>(0)
        let other = Atomic<Int>(0)
    }

    /// The simulated chip wired as `boards/sim.toml` says, the controller on it, and a driver
    /// that plays rounds of pulses in virtual time.
    final class Bench {
        static let coinLine = GPIOLineOffset(0)
        static let pushLine = GPIOLineOffset(1)
        let board = BoardFile.defaultSim
        let clock = ManualClock()
        let writes = Writes()
        let chip: SimChip
        let trace = TraceRing<TurnstileState, TurnstileEvent>(capacity: 256)
        let ledger = TurnstileController<SimChip>.Ledger(capacity: 256)
        let inputLog = TurnstileController<SimChip>.InputLog(capacity: 256)
        var ledgerEntries = 0
        let controller: TurnstileController<SimChip>
        var roundStart = MachineInstant.zero
        var drained = 0
        var transitions = 0
        var pulses = (coin: 0, push: 0)

        init() throws {
            let lines: [SimLine] = [
                SimLine("COIN", activeLow: true), SimLine("PUSH", activeLow: true),
                SimLine("SERVICE", activeLow: true), SimLine("EMERGENCY", activeLow: true),
                SimLine(nil), SimLine(nil), SimLine(nil), SimLine(nil),
            ]
            chip = SimChip(name: "simchip0", label: board.chip.text, lines: lines, clock: clock, seed: 7) { [writes] change in
                switch change.offset.rawValue {
                case 4: writes.lock.add(1, ordering: .relaxed)
                case 5: writes.alarm.add(1, ordering: .relaxed)
                default: writes.other.add(1, ordering: .relaxed)
                }
            }
            controller = try TurnstileController(chip: chip, board: board, trace: trace, ledger: ledger, inputLog: inputLog)
            try controller.start(at: .zero)
            trace.drain { _ in }
            ledger.drain { _ in }
            inputLog.drain { _ in }
        }

        /// One round of 7 s, four bouncy pulses: a coin and a passage (unlocked, then locked), a
        /// forced push (an alarm pulse), and a coin whose credit the relock timeout expires.
        func round() throws {
            let sim = board.sim
            func pulse(_ line: GPIOLineOffset, at offset: Duration, width: Duration) {
                chip.schedulePulse(line: line, at: roundStart + offset, width: width,
                                   bounceEdges: sim.bounceEdges, bounceWindow: sim.bounceWindow)
            }
            pulse(Self.coinLine, at: .zero, width: sim.pulse("coin")!)
            pulse(Self.pushLine, at: .milliseconds(200), width: sim.pulse("push")!)
            pulse(Self.pushLine, at: .milliseconds(500), width: sim.pulse("push")!)
            pulse(Self.coinLine, at: .milliseconds(1_200), width: sim.pulse("coin")!)
            pulses.coin += 2
            pulses.push += 2
            roundStart = roundStart + .seconds(7)
            try runTurns(of: controller, on: chip, until: roundStart) {
                drained += trace.drain { record in
                    if record.outcome == .transitioned { transitions += 1 }
                }
                // The store's and recorder's threads do this in the daemon; here, in line.
                ledgerEntries += ledger.drain { _ in }
                inputLog.drain { _ in }
            }
        }
    }

    /// What a controller does the first time after its start allocates nothing either, not even
    /// a generic type's metadata, which the runtime makes on a type's first use: a command, a
    /// condition declared and withdrawn by command, the first edges and timers. Only the
    /// controller's calls are counted (the simulated chip's scheduling is the test's, not the
    /// daemon's). No other test in this process sends a command, so the first one is this
    /// test's. The daemon's loop check (`scripts/check-loop-allocations.sh`) counts the same on
    /// the shipped binary; a generic answer type on the command path passed the warmed-up test
    /// above and was caught only there.
    @Test("a controller's first command, conditions, edges and timers after start allocate nothing")
    func firstUsesAfterStart() throws {
        let bench = try Bench()
        var allocations: UInt64 = 0
        func counted<T>(_ body: () throws -> T) rethrows -> T {
            malloc_counter_start()
            defer { allocations += malloc_counter_stop() }
            return try body()
        }
        var now = MachineInstant.zero + .milliseconds(10)
        let outcomes = try [TurnstileEvent.emergencyOn, .emergencyOn, .emergencyOff, .coin].map { event in
            now = now + .milliseconds(10)
            return try counted { try bench.controller.send(event, at: now) }
        }
        #expect(outcomes == [.dispatched, .alreadyInEffect, .dispatched, .dispatched])
        let sim = bench.board.sim
        bench.roundStart = now + .milliseconds(10)
        bench.chip.schedulePulse(line: Bench.pushLine, at: bench.roundStart, width: sim.pulse("push")!,
                                 bounceEdges: sim.bounceEdges, bounceWindow: sim.bounceWindow)
        let end = bench.roundStart + .seconds(7)
        while now < end {
            var next = end
            if let edge = bench.chip.nextEventTime, edge < next { next = edge }
            if let deadline = counted({ bench.controller.nextDeadline }), deadline < next { next = deadline }
            now = next
            bench.chip.advance(to: now)
            try counted { try bench.controller.process(now: now) }
        }
        #expect(allocations == 0, "a controller's first uses after start allocated \(allocations) times")
        let counters = bench.controller.context.counters
        #expect(counters.coins == 1 && counters.passages == 1, "the coin sent as a command paid for the push")
        #expect(bench.controller.state == .locked)
    }

    @Test("10,000+ bouncy pulses, edge to relay write to trace, allocate nothing")
    func fullPipeline() throws {
        let bench = try Bench()
        for _ in 0..<50 { try bench.round() }
        let ledgerBefore = bench.ledgerEntries
        let before = (counters: bench.controller.context.counters, pulses: bench.pulses, drained: bench.drained,
                      transitions: bench.transitions, lock: bench.writes.lock.load(ordering: .relaxed),
                      alarm: bench.writes.alarm.load(ordering: .relaxed))
        let rounds = 2_600

        malloc_counter_start()
        for _ in 0..<rounds { try bench.round() }
        let allocations = malloc_counter_stop()

        #expect(allocations == 0, "the event path allocated \(allocations) times over \(rounds * 4) pulses")
        let after = bench.controller.context.counters
        let coinPulses = bench.pulses.coin - before.pulses.coin
        let pushPulses = bench.pulses.push - before.pulses.push
        #expect(coinPulses + pushPulses >= 10_000)
        #expect(after.coins - before.counters.coins == coinPulses, "every coin pulse is one coin")
        #expect(after.passages - before.counters.passages == rounds, "one paid passage a round")
        #expect(after.forcedPushes - before.counters.forcedPushes == rounds, "one forced push a round")
        #expect((after.passages + after.forcedPushes) - (before.counters.passages + before.counters.forcedPushes) == pushPulses,
                "every push pulse is one push")
        #expect(after.expiredCredits - before.counters.expiredCredits == rounds, "one relock timeout a round")
        #expect(after.ignored == 0 && after.faults == 0)
        #expect(bench.controller.state == .locked)
        // coin, passage, forced push, coin, timeout: five dispatches, four of them transitions.
        #expect(bench.drained - before.drained == 5 * rounds, "every dispatch reached the trace")
        #expect(bench.transitions - before.transitions == 4 * rounds)
        #expect(bench.trace.lostCount == 0)
        // One entry per step: the five dispatches, and the end of the alarm pulse's write.
        #expect(bench.ledgerEntries - ledgerBefore >= 5 * rounds, "every step reached the ledger")
        #expect(bench.ledger.lostCount == 0 && bench.inputLog.lostCount == 0)
        #expect(bench.writes.lock.load(ordering: .relaxed) - before.lock == 4 * rounds, "the relay: released, held, released, held")
        #expect(bench.writes.alarm.load(ordering: .relaxed) - before.alarm == 2 * rounds, "one alarm pulse, on and off")
        #expect(bench.chip.scheduledEdgeCount == 0)

        // The control: the counter does see this thread's allocations (setting up a bench does).
        malloc_counter_start()
        let second = try Bench()
        let setUp = malloc_counter_stop()
        withExtendedLifetime(second) {}
        #expect(setUp > 0, "the malloc counter is not counting, so the zero above proves nothing")
    }
}
