// swift-tools-version:6.2
// libFuzzer targets for the parsers that read what users write: board files, scenarios and
// control-socket requests.
// A package of its own (like Benchmarks/), so library users never build it. Run them with
// ../scripts/fuzz.sh, which builds with `-sanitize=fuzzer,address` and runs each for a bounded time.
import PackageDescription

let package = Package(
    name: "ControllerFSMFuzz",
    dependencies: [
        .package(name: "ControllerFSM", path: ".."),
        // The second application, as a user's package: its scenario words (`arm stuck`), its
        // plant's [sim] keys and its [barrier] section are fuzzed beside the turnstile's, in the
        // same targets (the parsers are generic; the vocabularies are the applications').
        .package(name: "ParkingBarrier", path: "../Examples/ParkingBarrier"),
    ],
    targets: [
        // Declares libFuzzer's driver for the targets' entry points.
        .target(name: "CFuzzDriver"),
        .executableTarget(
            name: "FuzzBoardFile",
            dependencies: [
                "CFuzzDriver", .product(name: "ControllerHost", package: "ControllerFSM"), .product(name: "Turnstile", package: "ControllerFSM"),
                .product(name: "ControllerSimulation", package: "ControllerFSM"), .product(name: "ParkingBarrier", package: "ParkingBarrier"),
            ]),
        .executableTarget(
            name: "FuzzScenario",
            dependencies: [
                "CFuzzDriver", .product(name: "ControllerSimulation", package: "ControllerFSM"),
                .product(name: "ControllerHost", package: "ControllerFSM"), .product(name: "Turnstile", package: "ControllerFSM"),
                .product(name: "ControllerFSM", package: "ControllerFSM"), .product(name: "ParkingBarrier", package: "ParkingBarrier"),
            ]),
        .executableTarget(
            name: "FuzzControlRequest",
            dependencies: [
                "CFuzzDriver", .product(name: "ControllerDaemon", package: "ControllerFSM"), .product(name: "Turnstile", package: "ControllerFSM"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
