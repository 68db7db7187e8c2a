// swift-tools-version:6.2
import PackageDescription

// The parking barrier (docs/parking-barrier.md): the second application of
// ControllerFSM, written as a user's package is, on the root's public products only.
let package = Package(
    name: "ParkingBarrier",
    products: [
        .library(name: "ParkingBarrier", targets: ["ParkingBarrier"]),
        .executable(name: "barrierd", targets: ["barrierd"]),
    ],
    dependencies: [
        // The runtime, by path. Named, because a path dependency's identity is otherwise its
        // folder's name, which differs between checkouts (worktrees, CI clones).
        .package(name: "ControllerFSM", path: "../.."),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // The barrier's machine, its declaration to the runtime and its simulated arm.
        .target(
            name: "ParkingBarrier",
            dependencies: [
                .product(name: "ControllerFSM", package: "ControllerFSM"),
                .product(name: "ControllerHost", package: "ControllerFSM"),
            ],
            // boards/sim.toml and scenarios/demo.scenario, compiled in (links, so each has one source).
            resources: [.embedInCode("Resources/sim.toml"), .embedInCode("Resources/demo.scenario")]
        ),
        // The barrier's daemon and tools: the runtime's command line, read from the declaration.
        .executableTarget(
            name: "barrierd",
            dependencies: [
                "ParkingBarrier",
                .product(name: "ControllerCommandLine", package: "ControllerFSM"),
            ]
        ),
        .testTarget(
            name: "ParkingBarrierTests",
            dependencies: [
                "ParkingBarrier",
                .product(name: "ControllerFSM", package: "ControllerFSM"),
                .product(name: "ControllerHost", package: "ControllerFSM"),
                .product(name: "ControllerSimulation", package: "ControllerFSM"),
                .product(name: "ControllerSCXML", package: "ControllerFSM"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
