import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import ControllerDaemon
import Turnstile
@testable import ControllerHTTP

@Suite struct StatusServerTests {
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

    static let quietLogger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    @Test func servesOnTheBoundPortInAServiceGroupAndStopsWithIt() async throws {
        let ports = PortBox()
        let server = StatusServer(port: 0, metrics: ControllerMetrics<TurnstileApplication>(), logger: Self.quietLogger, onListening: { port in
            ports.continuation.yield(port)
        }) { fixedSnapshot(state: "locked") }
        let group = ServiceGroup(configuration: .init(services: [server], logger: Self.quietLogger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let port = try #require(await ports.next())
            #expect(port > 0)
            let response = try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
                try await client.get("/healthz")
            }
            #expect(response.status == .ok)
            #expect(response.body.map { String(buffer: $0) } == "ok\n")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test func aPortInUseIsRefusedWithTheAddressAndTheWayOut() async throws {
        let ports = PortBox()
        let first = StatusServer(port: 0, metrics: ControllerMetrics<TurnstileApplication>(), logger: Self.quietLogger, onListening: { port in
            ports.continuation.yield(port)
        }) { fixedSnapshot() }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await first.run() }
            let port = try #require(await ports.next())
            let second = StatusServer(port: port, metrics: ControllerMetrics<TurnstileApplication>(), logger: Self.quietLogger) { fixedSnapshot() }
            do {
                try await second.run()
                Issue.record("a second server bound \(port), which the first holds")
            } catch let error as StatusServerError {
                #expect(error.description.contains("127.0.0.1:\(port)"))
                #expect(error.description.contains("--http ADDRESS:PORT"))
            }
            tasks.cancelAll()
        }
    }
}
