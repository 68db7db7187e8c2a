import Foundation
import Testing
@testable import TurnstileDaemon

#if canImport(Glibc)
import Glibc
#endif

/// Local clients that try to use up the control socket: idle connections beyond the cap, and the
/// process out of descriptors.
extension ControlServerTests {
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
        let client = try ControlClient(path: scratch.socket)
        try client.send(ControlRequestLine(request: .status))
        #expect(try client.nextReply(timeoutSeconds: 5)?.reply == .status(Fixtures.snapshot))
        // Well under the read timeout, however loaded the machine: not a wait for the idle ones.
        #expect(ContinuousClock.now - started < .milliseconds(2500), "answered only once the idle connections timed out")
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
        Syscalls.injected.arm(.accept, errno: EMFILE)
        Syscalls.injected.arm(.reserve, errno: EMFILE)
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
        let next = try ControlClient(path: scratch.socket)
        try next.send(ControlRequestLine(request: .status))
        #expect(try next.nextReply(timeoutSeconds: 5)?.reply == .status(Fixtures.snapshot))
    }
}
