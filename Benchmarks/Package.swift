// swift-tools-version:6.2
import PackageDescription

// ControllerFSM's benchmarks, in a package of their own so that users of the library never fetch
// or build the benchmark framework. `scripts/bench.sh` at the repository root runs them.
let package = Package(
    name: "ControllerFSMBenchmarks",
    dependencies: [
        // The library under test, by path. Named, because a path dependency's identity is
        // otherwise its folder's name, which differs between checkouts (worktrees, CI clones).
        .package(name: "ControllerFSM", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // The C `switch` baselines: the practical lower bound.
        .target(name: "CBaselines"),
        // Every machine and implementation measured, the event streams, and the check that all
        // implementations compute the same thing.
        .target(
            name: "BenchMachines",
            dependencies: [
                "CBaselines",
                .product(name: "ControllerFSM", package: "ControllerFSM"),
                .product(name: "ControllerFSMSim", package: "ControllerFSM"),
                .product(name: "ControllerHost", package: "ControllerFSM"), .product(name: "Turnstile", package: "ControllerFSM"),
                .product(name: "ControllerSimulation", package: "ControllerFSM"),
            ]
        ),
        // The ordo-one/benchmark suite: wall clock and mallocs, all implementations in one run.
        .executableTarget(
            name: "DispatchBenchmarks",
            dependencies: ["BenchMachines", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/DispatchBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // One implementation over the stream, for instruction counts under callgrind.
        .executableTarget(name: "CallgrindProbe", dependencies: ["BenchMachines"]),
        // Edge-to-relay latency of the turnstile pipeline on the simulated chip.
        .executableTarget(
            name: "PipelineLatency",
            dependencies: [
                .product(name: "ControllerFSM", package: "ControllerFSM"),
                .product(name: "ControllerFSMSim", package: "ControllerFSM"),
                .product(name: "ControllerHost", package: "ControllerFSM"), .product(name: "Turnstile", package: "ControllerFSM"),
                .product(name: "ControllerSimulation", package: "ControllerFSM"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
