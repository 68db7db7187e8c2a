import Foundation
import Logging
import Testing
import ControllerDaemon
import Turnstile
@testable import ControllerHTTP

#if canImport(Glibc)
import Glibc
#endif

/// Clients that open connections and send half a request (or nothing): each is a descriptor of
/// the daemon's, so they are capped, and closed when idle, and a whole request still gets an answer.
@Suite struct StatusServerLimitTests {
    static let limits = StatusServerLimits(maxConnections: 8, idleTimeout: .milliseconds(500), backlog: 64)
    /// Connections beyond the cap the count may see without the cap being broken: the accept
    /// loop takes a batch before the limit applies (a loaded machine showed 15 for a cap of 8).
    static let slack = 8
    /// Generous for a loaded machine (the queued clients are served in rounds of the cap,
    /// each lasting the idle timeout).
    static let patience: Duration = .seconds(60)
    /// How long the clients' connections are left to the server before its accepted ones are
    /// counted, to show it takes no more than the cap: a slow machine only lets it accept fewer
    /// in the window, never more, so it cannot fail a server that keeps its cap.
    static let acceptWindow: Duration = .milliseconds(200)

    @Test("half-sent requests beyond the cap cost no descriptor, are closed when idle, and a whole request is answered")
    func halfSentRequestsAreCappedAndTimedOut() async throws {
        let ports = PortBox()
        let server = StatusServer(port: 0, metrics: ControllerMetrics<TurnstileApplication>(), limits: Self.limits, logger: quietLogger, onListening: { port in
            ports.continuation.yield(port)
        }) { fixedSnapshot(state: "locked") }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask(executorPreference: ServerExecutor()) { try await server.run() }
            let port = try #require(await ports.next())
            // Four times the cap: without it every one is held, far past cap and slack.
            let clients = 4 * Self.limits.maxConnections
            var sockets: [Int32] = []
            defer { for socket in sockets { close(socket) } }
            for index in 0..<clients {
                let socket = try #require(Self.connect(port: port), "connection \(index)")
                sockets.append(socket)
                // Half of them a request line and no end of the header; the rest nothing.
                if index % 2 == 0 { _ = "GET /healthz HTTP/1.1\r\nHost: x".withCString { write(socket, $0, strlen($0)) } }
            }
            try await Task.sleep(for: Self.acceptWindow)
            // The server's side: connections it accepted (a descriptor each), however many
            // connected; those beyond the cap wait in the kernel's queue, which has no descriptor.
            // (The accept under way when the cap is reached may take one or two more.)
            let held = Self.acceptedConnections(port: port)
            #expect(held <= Self.limits.maxConnections + Self.slack, "the server holds \(held) connections for \(clients) idle clients; the cap is \(Self.limits.maxConnections)")

            // Each is closed by the server once idle (those queued beyond the cap when they get a slot).
            var closed = 0
            let deadline = ContinuousClock.now + Self.patience
            for socket in sockets where ContinuousClock.now < deadline {
                if Self.waitForEnd(socket, until: deadline) { closed += 1 }
            }
            #expect(closed == clients, "\(closed) of \(clients) idle connections were closed by the server")

            let response = try await LoopbackClient(port: port).get("/healthz")
            #expect(response.status == .ok)
            tasks.cancelAll()
        }
    }

    /// Established TCP connections whose local port is `port` and that have a socket inode:
    /// the server's accepted ones (one still in the accept queue has none), counted by the kernel,
    /// whatever else the test process has open.
    static func acceptedConnections(port: Int) -> Int {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return 0 }
        let local = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().filter { row in
            let columns = row.split(separator: " ")
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            return columns.count > 9 && columns[1].hasSuffix(local) && columns[3] == "01" && columns[9] != "0"
        }.count
    }

    static func connect(port: Int) -> Int32? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(socket); return nil }
        return socket
    }

    /// Whether the peer closed `socket` (a read returns 0 or an error) before `deadline`.
    static func waitForEnd(_ socket: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 512)
        while ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let count = read(socket, &buffer, buffer.count)
            if count <= 0 { return true }
        }
        return false
    }
}

@Suite struct HostPortTests {
    @Test("an address and a port joined as a URL's authority", arguments: [
        ("127.0.0.1", 9180, "127.0.0.1:9180"),
        ("::1", 9180, "[::1]:9180"),
        ("[::1]", 80, "[::1]:80"),
        ("fe80::1%eth0", 0, "[fe80::1%eth0]:0"),
        ("localhost", 8080, "localhost:8080"),
    ])
    func joined(host: String, port: Int, expected: String) {
        #expect(hostPort(host, port) == expected)
    }

    @Test func aPortInUseOnIPv6IsNamedWithBrackets() {
        let error = StatusServerError.cannotListen(host: "::1", port: 9180, reason: "in use")
        #expect(error.description.contains("[::1]:9180"), "\(error)")
    }
}
