import BenchMachines
import Benchmark

// Dispatch cost of each implementation of each machine, all in one run, all on the same stream
// (EventStreams). One sample is one pass over the whole stream, so per-event figures are a
// sample's figures divided by `EventStreams.length`; `scripts/bench.sh` does that division and
// prints the comparison table.
//
// Each benchmark's setup first checks that its implementation ends as the C switch does on the
// stream: a benchmark of a machine that computes something else never runs.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        // Nanoseconds for every figure, so exported samples are exact and need no unit guessing.
        timeUnits: .nanoseconds,
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(4),
        maxIterations: 200
    )

    for machine in MachineKind.allCases {
        for implementation in machine.implementations {
            register(machine, implementation)
        }
    }
}

/// Benchmark names are `MACHINE.IMPLEMENTATION`, e.g. `turnstile.c-switch`; bench.sh reads them
/// back from the exported file names.
private func register(_ machine: MachineKind, _ implementation: Implementation) {
    // Made lazily, in the process that runs this benchmark (each benchmark runs in its own).
    nonisolated(unsafe) var runner: (any StreamRunner)?
    let configuration = Benchmark.Configuration(setup: {
        try EquivalenceCheck.verify(machine, implementation)
        runner = makeRunner(machine, implementation)
    })
    Benchmark("\(machine.rawValue).\(implementation.rawValue)", configuration: configuration) { benchmark in
        guard let runner else { fatalError("setup did not run") }
        for _ in benchmark.scaledIterations {
            runner.run(first: EventStreams.length)
        }
        blackHole(runner.result)
    }
}
