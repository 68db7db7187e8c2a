// swift-tools-version:6.2
import PackageDescription

// The allocation tests: the event path allocates nothing once warmed up, on an optimised build as
// users ship it. A package of their own, depending only on what they test, so that `swift test -c
// release` here compiles the runtime, the host, the turnstile, the chart controller and the
// daemon's status hub with -O and nothing else (not every test target of the root, nor HTTP, the store or the command line).
// Run by scripts/test.sh: `swift test -c release --package-path AllocationTests`.
let package = Package(
    name: "ControllerFSMAllocationTests",
    dependencies: [
        // The runtime, by path. Named, because a path dependency's identity is otherwise its
        // folder's name, which differs between checkouts (worktrees, CI clones).
        .package(name: "ControllerFSM", path: ".."),
    ],
    targets: [
        // Counts malloc/calloc/realloc/posix_memalign/aligned_alloc per thread. scripts/
        // check-loop-allocations.sh and the HIL compile the same file as a preload for the daemons.
        .target(name: "CMallocCounter"),
        // The counter as the tests use it, and whether this build can count at all.
        .target(name: "AllocationCounting", dependencies: ["CMallocCounter"]),
        .testTarget(
            name: "AllocationTests",
            dependencies: [
                "AllocationCounting",
                .product(name: "ControllerFSM", package: "ControllerFSM"),
                .product(name: "ControllerFSMSim", package: "ControllerFSM"),
                .product(name: "ControllerHost", package: "ControllerFSM"),
                .product(name: "Turnstile", package: "ControllerFSM"),
                .product(name: "ControllerDaemon", package: "ControllerFSM"),
                .product(name: "ControllerChart", package: "ControllerFSM"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
