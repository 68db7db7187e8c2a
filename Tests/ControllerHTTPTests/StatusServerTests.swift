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
            // What Hummingbird's Application sent, without its once-a-second refresh task.
            #expect(response.headers[.server] == "turnstiled")
            let date = try #require(response.headers[.date])
            #expect(date.hasSuffix(" GMT") && date.count == "Sun, 06 Nov 1994 08:49:37 GMT".count, "\(date)")
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

@Suite("HTTPDate: the Date header's text")
struct HTTPDateTests {
    @Test("RFC 9110's IMF-fixdate, as its own example and a leap day write it", arguments: [
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
    ] as [(Int, String)])
    func text(seconds: Int, expected: String) {
        #expect(HTTPDate.text(unixSeconds: seconds) == expected)
    }
}
