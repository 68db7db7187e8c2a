import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import ControllerDaemon
import Turnstile
@testable import ControllerHTTP

@Suite struct StatusServerTests {
    @Test func servesOnTheBoundPortInAServiceGroupAndStopsWithIt() async throws {
        let ports = PortBox()
        let server = StatusServer(port: 0, metrics: ControllerMetrics<TurnstileApplication>(), logger: quietLogger, onListening: { port in
            ports.continuation.yield(port)
        }) { fixedSnapshot(state: "locked") }
        let group = ServiceGroup(configuration: .init(services: [server], logger: quietLogger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask(executorPreference: ServerExecutor()) { try await group.run() }
            let port = try #require(await ports.next())
            #expect(port > 0)
            let response = try await LoopbackClient(port: port).get("/healthz")
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == "ok\n")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test func aPortInUseIsRefusedWithTheAddressAndTheWayOut() async throws {
        let ports = PortBox()
        let first = StatusServer(port: 0, metrics: ControllerMetrics<TurnstileApplication>(), logger: quietLogger, onListening: { port in
            ports.continuation.yield(port)
        }) { fixedSnapshot() }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask(executorPreference: ServerExecutor()) { try await first.run() }
            let port = try #require(await ports.next())
            let second = StatusServer(port: port, metrics: ControllerMetrics<TurnstileApplication>(), logger: quietLogger) { fixedSnapshot() }
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
