#if canImport(Glibc)
import Glibc
#endif
import Logging
import ServiceLifecycle
import ControllerDaemon
import ControllerHTTP
import Turnstile

/// Test-only: serves a fixed turnstile snapshot on the status endpoints so scripts and CI can check
/// `/metrics`, `/status`, `/healthz` and the page without a daemon or a board.
///
///     status-fixture [PORT [STATE [PHASE]]]     (defaults: 0 = any free port, unlocked, running)
///
/// Prints `listening on 127.0.0.1:PORT` once bound, then serves until SIGINT or SIGTERM.
let arguments = CommandLine.arguments.dropFirst()
let usage = "usage: status-fixture [PORT [STATE [PHASE]]]"
guard arguments.count <= 3, let port = Int(arguments.first ?? "0"), (0...65535).contains(port) else {
    print(usage)
    exit(2)
}
let state = arguments.dropFirst().first ?? "unlocked"
let phase = arguments.dropFirst(2).first ?? "running"

let snapshot = DaemonSnapshot(
    phase: phase, degradedReason: phase == "degraded" ? "store lost: /var/lib/turnstiled/counts.sqlite is read-only" : nil,
    state: state, gauges: ["credit": state == "unlocked" ? 2 : 0],
    counters: ["coins": 42, "passages": 37, "forcedPushes": 3, "expiredCredits": 2, "faults": 1,
               "coinsOutOfService": 1, "repairs": 1, "freePassages": 0, "ignored": 5],
    uptimeSeconds: 3725.5, board: "sim (boards/sim.toml)", chip: "simchip0 [turnstiled-sim]", events: 96,
    queueDepth: 0, droppedCommands: 0, lostEdges: 1, traceLosses: 0,
    lastTransitions: [
        TransitionSummary(time: 3600.2, from: "locked", event: "fault", to: "broken"),
        TransitionSummary(time: 3650.8, from: "broken", event: "repair", to: "outOfOrder"),
        TransitionSummary(time: 3655.8, from: "outOfOrder", event: "timeout", to: "locked"),
        TransitionSummary(time: 3720.1, from: "locked", event: "coin", to: "unlocked"),
    ]
)
let metrics = ControllerMetrics<TurnstileApplication>()
for microseconds in [18, 22, 35, 41, 60, 140] {
    metrics.recordLockLatency(nanoseconds: Int64(microseconds) * 1000)
}
let server = StatusServer(port: port, metrics: metrics, onListening: { boundPort in
    // Straight to the descriptor: a script reading a pipe must see the line before we exit.
    let line = Array("listening on \(hostPort(StatusServer.defaultHost, boundPort))\n".utf8)
    _ = line.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}) { snapshot }
var logger = Logger(label: "status-fixture")
logger.logLevel = .warning
let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
try await group.run()
