// Edge-to-relay latency of the whole turnstile pipeline on the simulated chip: from the
// `process(now:)` call in which the debouncer accepts an edge to the relay write that edge
// causes — processing time, not the debounce period. A consumer thread drains the trace ring
// meanwhile, as a logger would in the daemon.
//
//   swift run -c release --package-path Benchmarks PipelineLatency [pulses]
import ControllerFSM
import ControllerFSMSim
import Foundation
import Histogram
import Synchronization
import ControllerHost
import Turnstile
import ControllerSimulation

/// A number shared with the chip's output sink or the consumer thread.
final class SharedCell: Sendable {
    let value = Atomic<Int64>(0)
}

@main
enum PipelineLatency {
    /// The daemon's report rings' size (`turnstiled run`'s `reportRingCapacity`): what the consumer
    /// thread may fall behind by before records are lost (and counted).
    static let traceCapacity = 4096

    static func main() throws {
        let pulses = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200_000 : 200_000
        let wall = MonotonicClock()
        /// When the relay was last written (monotonic ns); 0 when not since the last reset.
        let relayWrittenAt = SharedCell()

        let clock = ManualClock()
        let board = BoardFile.defaultSim
        // Wired as boards/sim.toml says, as `turnstiled simulate` wires it.
        let lockOffset = SharedCell()
        let simulated = SimulatedBoard(board: board, clock: clock, seed: 7, outputSink: { change in
            if Int64(change.offset.rawValue) == lockOffset.value.load(ordering: .relaxed) {
                relayWrittenAt.value.store(wall.now().nanoseconds, ordering: .relaxed)
            }
        })
        let chip = simulated.chip
        lockOffset.value.store(Int64(simulated.outputRoles.first { $0.value == RoleName("lock") }!.key.rawValue), ordering: .relaxed)
        let trace = TraceRing<TurnstileState, TurnstileEvent>(capacity: traceCapacity)
        let controller = try TurnstileController(chip: chip, board: board, trace: trace)

        let consumerDone = SharedCell()   // 1 when the run is over
        let drained = SharedCell()        // records drained, + 1 once the consumer has finished
        let consumer = Thread {
            var count = 0
            while consumerDone.value.load(ordering: .acquiring) == 0 {
                count += trace.drain { _ in }
            }
            count += trace.drain { _ in }
            drained.value.store(Int64(count) + 1, ordering: .releasing)
        }
        consumer.start()

        let coinLine = try chip.offset(ofLineNamed: "COIN")
        let pushLine = try chip.offset(ofLineNamed: "PUSH")
        var histogram = Histogram<UInt64>(highestTrackableValue: 1_000_000_000, numberOfSignificantValueDigits: .three)
        var now = MachineInstant.zero
        try controller.start(at: now)

        /// Runs the world through `until`, measuring every step in which the relay is written.
        func run(until end: MachineInstant, record: Bool) throws {
            while true {
                var next = end
                if let edge = chip.nextEventTime, edge < next { next = edge }
                if let deadline = controller.nextDeadline, deadline < next { next = deadline }
                chip.advance(to: next)
                relayWrittenAt.value.store(0, ordering: .relaxed)
                let started = wall.now().nanoseconds
                try controller.process(now: next)
                let written = relayWrittenAt.value.load(ordering: .relaxed)
                if record && written != 0 { histogram.record(UInt64(written - started)) }
                if next == end { return }
            }
        }

        // A coin unlocks (relay released), a push 200 ms later relocks (relay held): two relay writes
        // per round, each caused by one debounced edge.
        for round in 0..<(pulses / 2 + 1_000) {
            let measuring = round >= 1_000   // the first rounds warm caches and the branch predictor
            chip.schedulePulse(line: coinLine, at: now, width: board.sim.pulse("coin")!,
                               bounceEdges: board.sim.bounceEdges, bounceWindow: board.sim.bounceWindow)
            chip.schedulePulse(line: pushLine, at: now + .milliseconds(200), width: board.sim.pulse("push")!,
                               bounceEdges: board.sim.bounceEdges, bounceWindow: board.sim.bounceWindow)
            now = now + .milliseconds(500)
            try run(until: now, record: measuring)
        }
        consumerDone.value.store(1, ordering: .releasing)
        while drained.value.load(ordering: .acquiring) == 0 { Thread.sleep(forTimeInterval: 0.001) }

        let counters = controller.context.counters
        func micros(_ nanos: UInt64) -> String { String(format: "%.2f", Double(nanos) / 1000) }
        print("edge-to-relay latency (simulated chip, processing time), \(histogram.totalCount) relay writes:")
        print("  p50 \(micros(histogram.valueAtPercentile(50))) µs   p99 \(micros(histogram.valueAtPercentile(99))) µs   "
            + "p99.9 \(micros(histogram.valueAtPercentile(99.9))) µs   max \(micros(histogram.max)) µs")
        print("  coins \(counters.coins), passages \(counters.passages), trace drained by another thread: "
            + "\(drained.value.load(ordering: .acquiring) - 1), lost \(trace.lostCount)")
    }
}
