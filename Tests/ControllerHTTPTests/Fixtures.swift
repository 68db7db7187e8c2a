import Dispatch
import Hummingbird
import Logging
import ServiceLifecycle
import Testing
import ControllerDaemon
import ControllerFSM
import ControllerHost
import Turnstile
@testable import ControllerHTTP

/// A snapshot with every field set to something recognisable.
func fixedSnapshot(
    phase: String = "running", degradedReason: String? = nil, state: String = "unlocked",
    counters: [String: Int] = ["coins": 7, "passages": 4, "expiredCredits": 1, "ignored": 2],
    events: Int = 20, droppedCommands: Int = 1, lostEdges: Int = 2, traceLosses: Int = 3
) -> DaemonSnapshot {
    DaemonSnapshot(
        phase: phase, degradedReason: degradedReason, state: state, gauges: ["credit": 2], counters: counters,
        uptimeSeconds: 61.25, board: "sim <test> & co", chip: "simchip0 [sim]", events: events,
        queueDepth: 4, droppedCommands: droppedCommands, lostEdges: lostEdges, traceLosses: traceLosses,
        lastTransitions: [
            TransitionSummary(time: 1.5, from: "locked", event: "coin", to: "unlocked"),
            TransitionSummary(time: 3.25, from: "unlocked", event: "push", to: "locked"),
        ]
    )
}

/// A snapshot the test can change between requests, as the daemon's would. The test sets it and
/// the server's thread reads it: behind a `Guarded`, whose lock ThreadSanitizer sees also when
/// the two meet (the standard library's `Mutex` then sleeps on a futex it cannot see).
final class SnapshotSource: Sendable {
    private let current: Guarded<DaemonSnapshot>

    init(_ snapshot: DaemonSnapshot) {
        current = Guarded(snapshot)
    }

    func set(_ snapshot: DaemonSnapshot) {
        current.withLock { $0 = snapshot }
    }

    func get() -> DaemonSnapshot {
        current.withLock { $0 }
    }
}

/// Runs `test` against a server of these routes on a loopback port of the kernel's choosing; the
/// page draws `diagram`, the turnstile's without one.
func withRoutes<Value>(
    _ source: SnapshotSource, metrics: ControllerMetrics<TurnstileApplication> = ControllerMetrics<TurnstileApplication>(), diagram: StateDiagram? = nil,
    _ test: @Sendable (LoopbackClient) async throws -> Value
) async throws -> Value {
    try await withRoutes(source, of: metrics, diagram: diagram, test)
}

/// Runs `test` against the routes of the server of `metrics`' application.
func withRoutes<App: ControllerApplication, Value>(
    _ source: SnapshotSource, of metrics: ControllerMetrics<App>, diagram: StateDiagram? = nil,
    _ test: @Sendable (LoopbackClient) async throws -> Value
) async throws -> Value {
    let ports = PortBox()
    let server = StatusServer(
        port: 0, diagram: diagram, metrics: metrics, logger: quietLogger,
        onListening: { ports.continuation.yield($0) }) { source.get() }
    let group = ServiceGroup(configuration: .init(services: [server], logger: quietLogger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask(executorPreference: ServerExecutor()) { try await group.run() }
        defer { tasks.cancelAll() }
        let port = try #require(await ports.next(), "the status server did not start")
        let value = try await test(LoopbackClient(port: port))
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return value
    }
}

/// The servers' tasks run on a queue of their own, not on Swift's few cooperative threads: other
/// suites block those (the command-line tests wait for the processes they start), and a server
/// starved of them would not answer before the client gives up. One queue per server, not one
/// for all: the suites' servers run at once, and none should wait behind another's work (a run
/// under ThreadSanitizer, with every suite at once, saw none of 32 idle connections closed within
/// 30 s while the servers shared one queue).
final class ServerExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "status-server-under-test")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Waits for the port a server reports through `onListening`.
final class PortBox: Sendable {
    let stream: AsyncStream<Int>
    let continuation: AsyncStream<Int>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    }

    func next() async -> Int? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }
}

/// The servers' own logs stay out of the test output.
let quietLogger: Logger = {
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    return logger
}()

/// The value of one series (`name{labels}` exactly as emitted) in a Prometheus text body.
func sample(_ body: String, _ series: String) -> Double? {
    for line in body.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}
