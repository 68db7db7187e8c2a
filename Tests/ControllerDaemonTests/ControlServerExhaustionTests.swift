import Foundation
import Testing
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

/// Local clients that try to use up the control socket: idle connections beyond the cap, and the
/// process out of descriptors.
extension ControlServerTests {
    /// How soon a whole request is answered while idle connections fill the cap, to show it is
    /// not a wait for their read timeout (3 s; a longer one would make the test wait it out).
    /// A connect, a line and a reply to a server in this process: milliseconds, even under a
    /// sanitizer; the 2.5 s left are for a test thread descheduled on a loaded machine.
    static let answeredBound: Duration = .milliseconds(2500)

    @Test func idleConnectionsBeyondTheCapMakeRoomAndTimeOut() throws {
        let limits = ControlServerLimits(readTimeoutSeconds: 3, maxConnections: 4)
        let server = try start(limits: limits)
        defer { server.stop() }
        // Twice the cap, half of them with half a request line.
        var idle: [RawClient] = []
        for index in 0..<(2 * limits.maxConnections) {
            let client = try RawClient(path: scratch.socket)
            if index % 2 == 0 { client.send(#"{"v":1,"comm"#) }
            idle.append(client)
        }
        // A whole request is answered at once, not after the idle ones' timeout.
        let started = ContinuousClock.now
        let client = try TurnstileClient(path: scratch.socket)
        try client.send(TurnstileRequestLine(request: .status))
        #expect(try client.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .status(Fixtures.snapshot))
        // Under the read timeout (3 s), by `answeredBound`: not a wait for the idle ones.
        #expect(ContinuousClock.now - started < Self.answeredBound, "answered only once the idle connections timed out")
        // Every idle one is told why and closed: made room for, or timed out.
        for (index, connection) in idle.enumerated() {
            let reply = try connection.reply()
            #expect(reply.reply.failureCode == "timeout", "idle connection \(index): \(reply)")
            #expect(connection.isClosed(), "idle connection \(index) still open")
        }
        #expect(server.statistics.evictedIdle >= limits.maxConnections)
        #expect(server.statistics.refusedBusy == 0)
    }

    @Test func outOfDescriptorsTheWaitingClientIsToldSoAndTheNextServed() throws {
        let server = try start()
        defer { server.stop() }
        // The process has no descriptor left: accept fails, and so does taking the reserve back
        // after it was given up for the waiting client.
        Syscalls.arm(.accept, at: place, errno: EMFILE)
        Syscalls.arm(.reserve, at: place, errno: EMFILE)
        let unlucky = try RawClient(path: scratch.socket)
        unlucky.send(#"{"v":1,"command":"pulse","line":"coin"}"# + "\n")
        let reply = try unlucky.reply()
        #expect(reply.reply.failureCode == "out_of_descriptors", "\(reply)")
        if case .failure(let failure) = reply.reply {
            #expect(failure.message.contains("nothing was done"), "\(failure.message)")
        }
        #expect(unlucky.isClosed())
        #expect(recorder.requests.isEmpty, "the refused client's command reached the handler")

        // The reserve is back: the next client is served.
        let next = try TurnstileClient(path: scratch.socket)
        try next.send(TurnstileRequestLine(request: .status))
        #expect(try next.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .status(Fixtures.snapshot))
    }

    @Test func aSlowFollowerIsToldWhyItIsDroppedAndTheDropIsLogged() throws {
        let logged = LoggedLines()
        let server = try ControlServer(
            path: scratch.socket, group: nil, limits: ControlServerLimits(maxBacklogBytes: 4096, maxPendingEvents: 100_000),
            onDrop: { logged.append($0) }, handler: recorder.handler)
        defer { server.stop() }
        let slow = try RawClient(path: scratch.socket)
        slow.send(#"{"v":1,"command":"events","follow":true}"# + "\n")
        #expect(slow.line() != nil)
        // Far more than the socket buffer and the backlog hold, and nobody reads.
        for index in 0..<20_000 {
            server.publish(TransitionSummary(time: Double(index), from: "locked", event: "coin", to: "unlocked"))
            if server.statistics.droppedSlowClients > 0 { break }
        }
        #expect(eventually { server.statistics.droppedSlowClients == 1 })
        // Reading now: whole lines, the last of them the reason, then the end.
        var last: String?
        while let line = slow.line() { last = line }
        let reply = try ControlReplyLine(parsing: Array(try #require(last, "no line before the end").utf8), daemon: "turnstiled")
        #expect(reply.reply.failureCode == "too_slow", "\(reply)")
        #expect(logged.lines.count == 1 && logged.lines.first?.contains("dropped") == true, "\(logged.lines)")
    }
}

final class LoggedLines: @unchecked Sendable {
    // Safety: `stored` only under `lock`.
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.lock(); stored.append(line); lock.unlock() }
    var lines: [String] { lock.lock(); defer { lock.unlock() }; return stored }
}
