// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "ControllerFSM",
    products: [
        .library(name: "ControllerFSM", targets: ["ControllerFSM"]),
        .library(name: "ControllerFSMSim", targets: ["ControllerFSMSim"]),
        .library(name: "ControllerFSMGpiod", targets: ["ControllerFSMGpiod"]),
        .library(name: "ControllerHost", targets: ["ControllerHost"]),
        .library(name: "Turnstile", targets: ["Turnstile"]),
        .library(name: "ControllerSimulation", targets: ["ControllerSimulation"]),
        .library(name: "ControllerDaemon", targets: ["ControllerDaemon"]),
        .library(name: "ControllerSite", targets: ["ControllerSite"]),
        .library(name: "ControllerRuntime", targets: ["ControllerRuntime"]),
        .library(name: "ControllerCommandLine", targets: ["ControllerCommandLine"]),
        .library(name: "ControllerMQTT", targets: ["ControllerMQTT"]),
        .executable(name: "turnstiled", targets: ["turnstiled"]),
        .library(name: "ControllerSCXML", targets: ["ControllerSCXML"]),
        .executable(name: "scxml-run", targets: ["scxml-run"]),
        .library(name: "ControllerChart", targets: ["ControllerChart"]),
        .executable(name: "chartd", targets: ["chartd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // No default traits: "FullFoundation" would link all of Foundation (and ICU's 34 MB of
        // data) for a date formatter of its form coders, which the status server does not use;
        // "ConfigurationSupport" would build swift-configuration, which it does not use either.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The runtime (Core/, Embedded-clean), its Linux lock and clocks, and the GPIO port.
        // CLinux for the futex its lock sleeps on (Platform/; Core/ uses nothing of the OS).
        .target(name: "ControllerFSM", dependencies: ["CLinux"]),
        // The simulated GPIO backend: in-memory chip, bouncing input drivers, virtual time.
        .target(name: "ControllerFSMSim", dependencies: ["ControllerFSM"]),
        // dlopen and dlsym with the reason a caller reports, for the four C targets below that
        // open their library at run time (CGpiod, CSQLite, CMosquitto, CLibXML2).
        .target(name: "CDynamicLibrary", linkerSettings: [.linkedLibrary("dl")]),
        // libgpiod through one neutral C API over its v1 (1.6) and v2 (2.x) generations, opened
        // at run time (dlopen): one binary for both, and no libgpiod headers to build it.
        .target(name: "CGpiod", dependencies: ["CDynamicLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // The libgpiod backend of the GPIO port: the only code that imports CGpiod.
        .target(name: "ControllerFSMGpiod", dependencies: ["ControllerFSM", "CGpiod"]),
        // The application declaration every controller implements, the board files it reads and
        // the host that runs any application on a GPIO chip. Knows the GPIO port, not any
        // backend of it, and no application's words.
        .target(name: "ControllerHost", dependencies: ["ControllerFSM"]),
        // The turnstile: its machine and its declaration, as a library so tests can drive it.
        .target(
            name: "Turnstile",
            dependencies: ["ControllerFSM", "ControllerHost"],
            // boards/sim.toml, compiled into the library (a link, so the board has one source):
            // `turnstiled simulate` runs without a board path or a resource bundle beside it.
            resources: [.embedInCode("Resources/sim.toml")]
        ),
        // The turnstile on the simulated chip: scenario files, simulated boards, the reporters'
        // protocol and the timing checks that `simulate`, `run --script` and the tests use.
        .target(name: "ControllerSimulation", dependencies: ["ControllerHost", "ControllerFSM", "ControllerFSMSim"]),
        // The daemon around the controller: its lifecycle, status, control socket, store and
        // recorder, signals and systemd, each a service of one group. Knows the application's
        // declaration, not any application nor the GPIO backend. CLinux for the signal trap.
        .target(
            name: "ControllerDaemon",
            dependencies: [
                "ControllerFSM", "ControllerHost", "CLinux", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The daemon's HTTP face: /metrics for Prometheus, /status as JSON, /healthz, and the
        // live status page. Knows the daemon's snapshot and the application's declaration (its
        // name, machine, counters and gauges), not the controller.
        .target(
            name: "ControllerHTTP",
            dependencies: [
                "ControllerDaemon", "ControllerHost", "ControllerFSM",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The pages' scripts and styles, as files an editor and a linter read as JavaScript
            // and CSS, compiled into the module (PageTemplate says how a page fills them): the
            // daemons ship as single static binaries, with no resource bundle beside them.
            resources: [
                .embedInCode("Pages/status-page.js"), .embedInCode("Pages/status-page.css"),
                .embedInCode("Pages/status-page-nested.css"), .embedInCode("Pages/site-page.js"),
                .embedInCode("Pages/site-page.css"), .embedInCode("Pages/page-polling.js"),
            ]
        ),
        // Test-only: serves a fixed snapshot so scripts/check-status-endpoints.sh has a server.
        .executableTarget(
            name: "status-fixture",
            dependencies: [
                "ControllerHTTP", "Turnstile",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // SQLite's C API, opened at run time (dlopen of libsqlite3.so.0, which Swift's own
        // install already needs): no sqlite3.h or libsqlite3-dev to build it.
        .target(name: "CSQLite", dependencies: ["CDynamicLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // The durable count store of any application: every counted event and the totals in
        // SQLite (through CSQLite; its SQLite/ layer is the only code that imports it), and the
        // thread that drains the controller's ledger into it. Its kinds, gauges and balances
        // come from the declaration.
        .target(name: "ControllerStore", dependencies: ["ControllerFSM", "ControllerHost", "CSQLite"]),
        // libmosquitto's C API, opened at run time (dlopen of libmosquitto.so.1): no mosquitto.h
        // or libmosquitto-dev to build it, and a machine without the library runs all but MQTT.
        .target(name: "CMosquitto", dependencies: ["CDynamicLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // The daemon's MQTT client (MQTT 3.1.1 through CMosquitto, its only importer): the
        // broker's URL, TLS and password-file settings, a network thread that keeps one
        // connection up, and typed errors that name the broker, the file and the fix.
        .target(name: "ControllerMQTT", dependencies: ["ControllerFSM", "ControllerHost", "CMosquitto"]),
        // The Linux calls the daemon's event loop needs that Swift's Glibc module leaves out.
        .target(name: "CLinux"),
        // Swift's global executor hook, set from C so it is found in the statically linked
        // shipped build too (DaemonExecutor, its only user, says why).
        .target(name: "CExecutorHook"),
        // A site of controllers on one MQTT broker: the publisher (its node's claim, the outbox,
        // commands), Home Assistant's discovery, the fleet's view and retirement; every broker
        // reached through `SiteTransport`, ControllerMQTT's client in a daemon and the in-memory
        // broker in tests, as the simulated chip is for GPIO.
        .target(
            name: "ControllerSite",
            dependencies: [
                "ControllerFSM", "ControllerHost", "ControllerDaemon", "ControllerHTTP", "ControllerStore", "ControllerMQTT",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Any application's daemon, without a command line: the event loop and its sources
        // (libgpiod's or the simulated board's), the services (controller, lines, store,
        // reporter, control, status, site) run as one group, the drain, the reload, and
        // `Daemon<App>` with `RunOptions` built in code as the entry a `main` of its own calls.
        .target(
            name: "ControllerRuntime",
            dependencies: [
                "ControllerHost", "ControllerSimulation", "ControllerDaemon", "ControllerHTTP", "ControllerStore", "ControllerFSMSim", "ControllerFSMGpiod", "ControllerMQTT", "ControllerSite", "CLinux", "CExecutorHook",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The daemon's tasks run on NIO's event loops (DaemonExecutor says why).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Any application's command line (run, simulate, check, graph, lines, soak, stats, ctl,
        // fleet), read from its declaration: ArgumentParser's commands on the runtime. An
        // application's main.swift is one line, `ControllerCommand<App>.runCommandLine()`.
        .target(
            name: "ControllerCommandLine",
            dependencies: [
                "ControllerRuntime", "ControllerHost", "ControllerSimulation", "ControllerDaemon", "ControllerHTTP", "ControllerStore", "ControllerFSMSim", "ControllerFSMGpiod", "ControllerMQTT", "ControllerSite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // The fleet's page, served as one group with its broker's client.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The turnstile's daemon: the runtime's command line on the turnstile's declaration.
        .executableTarget(name: "turnstiled", dependencies: ["ControllerCommandLine", "Turnstile"]),
        // libxml2's C API, opened at run time (dlopen of libxml2.so.2): no libxml2 headers or
        // libxml2-dev to build it, and nothing but the SCXML loader ever opens it.
        .target(name: "CLibXML2", dependencies: ["CDynamicLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // The SCXML loader: a document (or a W3C test, .txml) read through CLibXML2 into a
        // machine on the runtime, its datamodel behind one protocol, and the driver that runs it
        // in virtual time. Neither daemon links it. ControllerHost for the one path by which
        // text from outside reaches a person (ShownText: its messages quote a document's text).
        .target(name: "ControllerSCXML", dependencies: ["ControllerFSM", "ControllerHost", "CLibXML2"]),
        // `scxml-run FILE...`: runs each document, one line per file, each line through ShownText.
        .executableTarget(name: "scxml-run", dependencies: ["ControllerSCXML", "ControllerHost"]),
        // An SCXML chart as a controller: a binding file (TOML) names the chart and binds a board's
        // lines, the operator's commands, counters, invariants and timers to it; the declaration
        // the runtime reads is made from both when the chart is loaded, in a space of the
        // program's own (the states' and events' names travel with the machine's types).
        .target(name: "ControllerChart", dependencies: ["ControllerFSM", "ControllerHost", "ControllerSCXML"]),
        // `chartd --chart door.toml COMMAND`: the runtime's whole command line on a chart, and
        // `explore` (a chart's author has no Swift tests to explore it from).
        .executableTarget(name: "chartd", dependencies: [
            "ControllerChart", "ControllerCommandLine", "ControllerRuntime", "ControllerHost", "ControllerFSM",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The checks CI runs on each controller's shipped daemon (`controller-checks crash`: kill -9
        // at random moments, every reported count durable), driven by its package's
        // packaging/checks.json. It names no application: a third controller's package gets them
        // by saying there what drives them.
        .target(name: "ControllerChecks", dependencies: ["ControllerDaemon", "ControllerStore", "ControllerFSMSim", "CLinux"]),
        .executableTarget(
            name: "controller-checks",
            dependencies: ["ControllerChecks", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The GPIO port's contract: checks every backend must pass, run against SimChip in the
        // tests and against libgpiod on the kernel's gpio-sim chip in the VM (gpio-contract).
        .target(name: "GPIOPortContract", dependencies: ["ControllerFSM"]),
        .executableTarget(name: "gpio-contract", dependencies: ["GPIOPortContract", "ControllerFSMGpiod"]),
        // Callgrind's client requests (valgrind/callgrind.h, Debian's valgrind package) as C
        // functions; no-ops where the header is missing, so the package builds without it.
        .target(name: "CCallgrindMarks"),
        // The event path's instructions per edge under callgrind: the turnstile's controller on
        // the simulated chip, collection switched on from the edge read to the output write
        // (scripts/edge-path-callgrind.sh; docs/performance.md).
        .executableTarget(name: "edge-path-probe", dependencies: ["CCallgrindMarks", "ControllerFSM", "ControllerFSMSim", "ControllerHost", "Turnstile"]),
        // The allocation tests are a package of their own (AllocationTests/): they need an
        // optimised build, and there it compiles only what they test.
        .testTarget(name: "ControllerFSMGpiodTests", dependencies: ["ControllerFSMGpiod", "ControllerFSM"]),
        // The SCXML loader's tests and the W3C's conformance tests (W3C/, read by path:
        // `#filePath`, not bundled).
        .testTarget(name: "ControllerSCXMLTests", dependencies: [
                "ControllerTestSupport","ControllerSCXML", "ControllerFSM", "ControllerHost", "Turnstile"]),
        // Chart controllers: a door chart bound to a board, simulated in-process and compared with
        // the same door written in Swift; `chartd` as a user runs it.
        .testTarget(name: "ControllerChartTests", dependencies: [
                "ControllerChart", "ControllerSCXML", "ControllerHost", "ControllerFSM", "ControllerFSMSim", "ControllerSimulation", "ControllerDaemon",
                "ControllerTestSupport"]),
        .testTarget(name: "ControllerFSMTests", dependencies: ["ControllerFSM", "ControllerFSMSim", "GPIOPortContract", "ControllerTestSupport"]),
        // The turnstile's own tests: its machine, its scenarios, and `turnstiled` as a user runs it
        // (the command line's surface: options, exit statuses, messages, signals).
        .testTarget(
            name: "TurnstileTests",
            dependencies: [
                "Turnstile", "ControllerHost", "ControllerSimulation", "ControllerFSMSim", "ControllerMQTT",
                // The site's topics and the control client, for the site's subprocess tests.
                "ControllerCommandLine", "ControllerDaemon", "ControllerSite",
                // The crash check, run on the debug build.
                "ControllerChecks",
                "ControllerTestSupport", "TurnstileTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The host's contract (board files, the TOML reader, interlocks, overrides, exploration),
        // on small applications of the tests' own and on the turnstile.
        .testTarget(
            name: "ControllerHostTests",
            dependencies: [
                "ControllerHost", "ControllerFSM", "ControllerFSMSim", "ControllerSimulation", "Turnstile",
                "ControllerTestSupport", "TurnstileTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The scenario language and the simulated plant: parsing, errors, expects, same-instant
        // order, replay, timing relations.
        .testTarget(
            name: "ControllerSimulationTests",
            dependencies: [
                "ControllerSimulation", "ControllerHost", "ControllerFSM", "ControllerFSMSim", "Turnstile",
                "ControllerTestSupport", "TurnstileTestSupport",
            ]
        ),
        // The site: the node's claim as a value, the in-memory broker, the publisher on it (and on
        // a real mosquitto), discovery, the identities and the fleet's view.
        .testTarget(
            name: "ControllerSiteTests",
            dependencies: [
                "ControllerSite", "ControllerDaemon", "ControllerHost", "ControllerHTTP", "ControllerMQTT", "ControllerStore", "ControllerFSM",
                "ControllerFSMSim", "Turnstile", "ControllerTestSupport", "TurnstileTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The runtime in-process (`@testable`): the whole daemon on a simulated chip from options
        // built in code, with its own signals; the event loop, its executor, late turns, the
        // store service, the reporter, the reload protocol, Home Assistant's controls.
        .testTarget(
            name: "ControllerRuntimeTests",
            dependencies: [
                "ControllerRuntime", "ControllerDaemon", "ControllerHost", "ControllerHTTP", "ControllerMQTT", "ControllerStore", "ControllerSite",
                "ControllerSimulation", "ControllerFSM", "ControllerFSMSim", "Turnstile", "ControllerTestSupport", "TurnstileTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The command line's own surface in-process (`@testable`): its options and their
        // messages, `ctl`'s answers, the fleet's view. No subprocess: those tests are the
        // products' own.
        .testTarget(
            name: "ControllerCommandLineTests",
            dependencies: [
                "ControllerCommandLine", "ControllerRuntime", "ControllerDaemon", "ControllerHost", "ControllerHTTP", "ControllerMQTT", "ControllerStore", "ControllerSite",
                "ControllerSimulation", "ControllerFSM", "ControllerFSMSim", "Turnstile", "ControllerTestSupport", "TurnstileTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // What the test targets share: temporary directories, the repository's files, the time
        // bounds a test may wait, a throwaway broker, and small applications (a shuttle, a
        // two-door interlock) for the host's generic rules.
        .target(
            name: "ControllerTestSupport",
            dependencies: [
                "ControllerFSM", "ControllerFSMSim", "ControllerHost", "ControllerSimulation", "ControllerMQTT",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/ControllerTestSupport"
        ),
        // The turnstile's words for the simulation and a reporter that checks its lock as a run
        // goes, for the tests that use the turnstile as their example.
        .target(
            name: "TurnstileTestSupport",
            dependencies: ["Turnstile", "ControllerHost", "ControllerSimulation", "ControllerFSM", "ControllerTestSupport"],
            path: "Tests/TurnstileTestSupport"
        ),
        .testTarget(
            name: "ControllerHTTPTests",
            dependencies: [
                "ControllerTestSupport",
                "ControllerHTTP", "ControllerHost", "ControllerFSM", "Turnstile",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The turnstile's page and metrics as the turnstile's own code served them, before
            // they were read from its declaration: read by path (`#filePath`), not bundled.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ControllerDaemonTests",
            dependencies: [
                "ControllerDaemon", "ControllerHost", "Turnstile", "ControllerFSMSim", "ControllerTestSupport", "TurnstileTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Against a real broker (scripts/mqtt-broker.sh starts Debian's mosquitto); the broker's
        // tests are skipped where mosquitto or libmosquitto is not installed, unless
        // CONTROLLER_MQTT_REQUIRE_BROKER=1 makes that a failure. `swift test --filter
        // ControllerMQTTTests` runs this target alone.
        .testTarget(name: "ControllerChecksTests", dependencies: ["ControllerChecks", "ControllerTestSupport"]),
        .testTarget(name: "ControllerMQTTTests", dependencies: ["ControllerMQTT", "ControllerTestSupport"]),
        .testTarget(
            name: "ControllerStoreTests",
            dependencies: [
                "ControllerTestSupport", "TurnstileTestSupport",
                "ControllerStore", "ControllerHost", "Turnstile", "ControllerFSM", "ControllerFSMSim",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            // A count database made by an earlier turnstiled, and the scenarios that made it:
            // read by path (`#filePath`), not bundled.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
