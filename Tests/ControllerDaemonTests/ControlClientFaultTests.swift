import Testing
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `turnstiled ctl`'s side of the socket, failed on purpose: the user learns which socket and
/// why. The client's calls take their own faults (`clientSend`, `clientPoll`, `clientRead`),
/// so the server in the same process goes on untouched. Tests of the control server's suite
/// (its scratch socket, at which the faults are armed).
extension ControlServerTests {
    @Test func aFailedClientSendNamesTheSocketAndTheReason() throws {
        let server = try start()
        defer { server.stop() }
        let client = try TurnstileClient(path: scratch.socket)
        Syscalls.arm(.clientSend, at: place, errno: EPIPE)
        let error = #expect(throws: ControlClientError.self) { try client.send(TurnstileRequestLine(request: .status)) }
        #expect(error == .system(path: scratch.socket, call: "send", errno: EPIPE, daemon: "turnstiled"))
        #expect(error?.description == "cannot talk to turnstiled on \(scratch.socket): send failed: Broken pipe")
        #expect(recorder.requests.isEmpty)
    }

    @Test func aFailedClientPollOrReadNamesTheSocketAndTheReason() throws {
        let server = try start()
        defer { server.stop() }
        let client = try TurnstileClient(path: scratch.socket)
        try client.send(TurnstileRequestLine(request: .status))

        Syscalls.arm(.clientPoll, at: place, errno: ENOMEM)
        let pollError = #expect(throws: ControlClientError.self) { try client.nextReply(timeoutSeconds: TestTimeouts.reply) }
        #expect(pollError?.description == "cannot talk to turnstiled on \(scratch.socket): poll failed: Cannot allocate memory")

        Syscalls.arm(.clientRead, at: place, errno: EIO)
        let readError = #expect(throws: ControlClientError.self) { try client.nextReply(timeoutSeconds: TestTimeouts.reply) }
        #expect(readError == .system(path: scratch.socket, call: "read", errno: EIO, daemon: "turnstiled"))
        #expect(readError?.description == "cannot talk to turnstiled on \(scratch.socket): read failed: Input/output error")

        // The server took none of them: its reply is still there to read.
        #expect(try client.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .status(Fixtures.snapshot))
        #expect(server.statistics.systemCallFailures == 0)
    }
}
