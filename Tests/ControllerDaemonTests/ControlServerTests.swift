import ControllerTestSupport
import Foundation
import Testing
import TurnstileTestSupport
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

/// End to end over real sockets. The fault-injection tests fail calls at their own socket
/// (`place`), so the tests run alongside each other and every other server in the process.
@Suite("Control server")
final class ControlServerTests {
    let scratch: ScratchDirectory
    let recorder = RecordingHandler()
    /// Where this test's server and clients make their calls: its socket.
    var place: Syscalls.Place { .path(scratch.socket) }

    init() throws {
        scratch = try ScratchDirectory()
    }

    deinit { Syscalls.disarm(at: place) }

    /// A server on the scratch socket (used by the extensions' tests too).
    /// The longest a `publish` may take while a follower reads nothing. A publish that waited
    /// for the slow follower would wait for ever (it never reads): any bound catches it. A
    /// publish copies a line into each follower's backlog, microseconds; the bound is what a
    /// thread descheduled on a loaded machine under a sanitizer may lose (it was 50 ms, which
    /// one such pause could take up, and so fail a correct server).
    static let publishBound: Duration = .seconds(1)

    func start(group: String? = nil, limits: ControlServerLimits = .standard) throws -> ControlServer {
        try ControlServer(path: scratch.socket, group: group, limits: limits, handler: recorder.handler)
    }

    @Test func statusRoundTripThroughTheClient() throws {
        let server = try start()
        defer { server.stop() }
        let client = try TurnstileClient(path: scratch.socket)
        try client.send(TurnstileRequestLine(id: 5, request: .status))
        let reply = try #require(try client.nextReply(timeoutSeconds: TestTimeouts.reply))
        #expect(reply == ControlReplyLine(id: 5, reply: .status(Fixtures.snapshot)))
    }

    @Test func commandsReachTheHandlerWithThePeer() throws {
        let server = try start()
        defer { server.stop() }
        let client = try TurnstileClient(path: scratch.socket)
        for (request, answer) in [(TurnstileRequest.command(.repair), "repair"), (.command(.emergencyOn), "emergencyOn"), (.pulse(.coin), "pulse coin")] {
            try client.send(TurnstileRequestLine(request: request))
            #expect(try client.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .accepted(answer))
        }
        try client.send(TurnstileRequestLine(request: .pulse(.push)))
        #expect(try client.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .failure(ControlFailure(code: "refused", message: "pulse is for the simulated board only")))
        let seen = recorder.requests
        #expect(seen.map(\.0) == [.command(.repair), .command(.emergencyOn), .pulse(.coin), .pulse(.push)])
        #expect(seen.allSatisfy { $0.1 == PeerCredentials(pid: getpid(), uid: geteuid(), gid: getegid()) })
    }

    @Test func anOversizedLineIsAnsweredAndTheConnectionGoesOn() throws {
        let server = try start()
        defer { server.stop() }
        let client = try RawClient(path: scratch.socket)
        client.send(String(repeating: "x", count: ControlProtocol.maxRequestBytes + 1))
        // Answered before the line even ends.
        #expect(try client.reply().reply == .failure(ControlFailure(.requestTooLong(limit: ControlProtocol.maxRequestBytes))))
        // The rest of the line, however long, is skipped; the next line is served.
        client.send(String(repeating: "y", count: 100_000) + "\n" + #"{"v":1,"id":2,"command":"status"}"# + "\n")
        #expect(try client.reply() == ControlReplyLine(id: 2, reply: .status(Fixtures.snapshot)))
        #expect(recorder.requests.count == 1)
        #expect(server.statistics.malformedRequests == 1)
    }

    @Test func malformedRequestsGetErrorRepliesAndNeverReachTheHandler() throws {
        let server = try start()
        defer { server.stop() }
        let client = try RawClient(path: scratch.socket)
        let cases: [(String, String)] = [
            ("{nope", "malformed_json"), ("[1]", "not_an_object"), (#"{"v":9,"command":"status"}"#, "unsupported_version"),
            (#"{"v":1,"id":4,"command":"stauts"}"#, "unknown_command"), (#"{"v":1,"command":"emergency"}"#, "missing_field"),
            ("\u{0}\u{1}\u{FF}", "malformed_json"),
        ]
        for (line, code) in cases {
            client.send(line + "\n")
            let reply = try client.reply()
            guard case .failure(let failure) = reply.reply else {
                Issue.record("\(line): \(reply)")
                continue
            }
            #expect(failure.code == code, "\(line)")
        }
        client.send(#"{"v":1,"id":4,"command":"stauts"}"# + "\n")
        #expect(try client.reply().id == 4)
        #expect(recorder.requests.isEmpty)
    }

    @Test func aClientThatSendsNothingTimesOut() throws {
        let server = try start(limits: ControlServerLimits(readTimeoutSeconds: 0.3))
        defer { server.stop() }
        let client = try RawClient(path: scratch.socket)
        let reply = try client.reply()
        #expect((reply.reply.failureCode) == "timeout")
        #expect(client.isClosed())
        #expect(server.statistics.timedOut == 1)
        // Half a line is no better.
        let partial = try RawClient(path: scratch.socket)
        partial.send(#"{"v":1,"#)
        #expect(try partial.reply().reply.failureCode == "timeout")
    }

    @Test func aClientThatHangsUpItsSideStillGetsItsReply() throws {
        let server = try start()
        defer { server.stop() }
        let client = try RawClient(path: scratch.socket)
        client.send(#"{"v":1,"command":"status"}"# + "\n")
        shutdown(client.descriptor, Int32(SHUT_WR))
        #expect(try client.reply().reply == .status(Fixtures.snapshot))
        #expect(client.isClosed())
    }

    @Test func followersReceivePublishedTransitions() throws {
        let server = try start()
        defer { server.stop() }
        let follower = try TurnstileClient(path: scratch.socket)
        try follower.send(TurnstileRequestLine(request: .events(follow: true)))
        #expect(try follower.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .transitions(Fixtures.transitions))
        let other = try TurnstileClient(path: scratch.socket)
        try other.send(TurnstileRequestLine(request: .events(follow: false)))
        #expect(try other.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .transitions(Fixtures.transitions))

        let event = TransitionSummary(time: 9, from: "locked", event: "fault", to: "broken")
        server.publish(event)
        #expect(try follower.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .event(event))
        // Not a follower: nothing more comes to it.
        try other.send(TurnstileRequestLine(request: .status))
        #expect(try other.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .status(Fixtures.snapshot))
    }

    @Test func aSlowFollowerIsDroppedWithoutHoldingThePublisherOrTheOthers() throws {
        let limits = ControlServerLimits(maxBacklogBytes: 8192, maxPendingEvents: 100_000)
        let server = try start(limits: limits)
        defer { server.stop() }
        let slow = try RawClient(path: scratch.socket)
        slow.send(#"{"v":1,"command":"events","follow":true}"# + "\n")
        #expect(slow.line() != nil)

        let total = 10_000
        let batch = 50
        let received = ReceivedCount()
        let path = scratch.socket
        // The fast follower reads on a thread of its own, as `ctl events --follow` would.
        let reader = Thread {
            guard let fast = try? TurnstileClient(path: path), (try? fast.send(TurnstileRequestLine(request: .events(follow: true)))) != nil,
                  (try? fast.nextReply(timeoutSeconds: TestTimeouts.reply)) != nil else { return }
            received.following()
            while received.value < total, let line = try? fast.nextReply(timeoutSeconds: TestTimeouts.reply), case .event = line.reply {
                received.increment()
            }
        }
        reader.start()
        #expect(eventually { received.isFollowing })

        // Far more than the kernel's socket buffer and the backlog hold for the slow one, at the
        // pace the fast one reads (a debug build decodes slower than the server writes).
        var slowestPublish: Duration = .zero
        let clock = ContinuousClock()
        for first in stride(from: 0, to: total, by: batch) {
            for index in first..<(first + batch) {
                let started = clock.now
                server.publish(TransitionSummary(time: Double(index), from: "locked", event: "coin", to: "unlocked"))
                slowestPublish = max(slowestPublish, clock.now - started)
            }
            guard eventually(TestTimeouts.reply, { received.value == first + batch }) else { break }
        }
        #expect(received.value == total, "the fast follower got \(received.value) of \(total)")
        #expect(server.statistics.droppedSlowClients == 1)
        #expect(slow.isClosed())
        #expect(slowestPublish < Self.publishBound, "a publish took \(slowestPublish)")
        #expect(server.statistics.lostEvents == 0)
    }

    @Test func connectionsBeyondTheLimitAreRefused() throws {
        let server = try start(limits: ControlServerLimits(maxConnections: 2))
        defer { server.stop() }
        // Followers: the only connections a new one cannot displace (idle ones make room; see
        // ControlServerExhaustionTests).
        let first = try RawClient(path: scratch.socket)
        let second = try RawClient(path: scratch.socket)
        for client in [first, second] {
            client.send(#"{"v":1,"command":"events","follow":true}"# + "\n")
            _ = try client.reply()
        }
        let third = try RawClient(path: scratch.socket)
        #expect(try third.reply().reply.failureCode == "too_many_connections")
        #expect(third.isClosed())
        for client in [first, second] {
            client.send(#"{"v":1,"command":"status"}"# + "\n")
            #expect(try client.reply().reply == .status(Fixtures.snapshot))
        }
        #expect(server.statistics.refusedBusy == 1)
    }

    @Test func theSocketIsGroupOwnedWithMode0660() throws {
        let server = try start(group: "daemon")
        var status = stat()
        #expect(lstat(scratch.socket, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(status.st_mode & 0o777 == 0o660)
        #expect(status.st_gid == getgrnam("daemon").pointee.gr_gid)
        #expect(server.groupID == 1)
        server.stop()
        #expect(!FileManager.default.fileExists(atPath: scratch.socket))
    }

    @Test func setupErrorsNameTheFix() throws {
        #expect(throws: ControlServerError.unknownGroup("no-such-group-xyz")) { try self.start(group: "no-such-group-xyz") }
        let missing = scratch.path + "/absent/control.sock"
        #expect(throws: ControlServerError.directoryMissing(path: missing, directory: scratch.path + "/absent", daemon: "turnstiled")) {
            try ControlServer(path: missing, group: nil, handler: self.recorder.handler)
        }
        let long = scratch.path + "/" + String(repeating: "s", count: 120)
        #expect(throws: ControlServerError.pathTooLong(path: long, limit: 107)) { try ControlServer(path: long, group: nil, handler: self.recorder.handler) }

        _ = FileManager.default.createFile(atPath: scratch.socket, contents: Data("keep me".utf8))
        #expect(throws: ControlServerError.notASocket(path: scratch.socket, daemon: "turnstiled")) { try self.start() }
        #expect(FileManager.default.contents(atPath: scratch.socket) == Data("keep me".utf8))
        #expect(ControlServerError.unknownGroup("turnstiled").description.contains("groupadd --system turnstiled"))
    }

    @Test func aStaleSocketIsReplacedAndALiveOneIsNot() throws {
        // A socket file nobody listens on, as a killed daemon leaves it.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = try #require(Syscalls.unixAddress(scratch.socket))
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        close(stale)
        let server = try start()
        defer { server.stop() }
        #expect(throws: ControlServerError.inUse(path: scratch.socket, daemon: "turnstiled")) { try self.start() }
        let client = try TurnstileClient(path: scratch.socket)
        try client.send(TurnstileRequestLine(request: .status))
        #expect(try client.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .status(Fixtures.snapshot))
    }

    @Test func aFailedChownLeavesNoSocketBehind() throws {
        Syscalls.arm(.chown, at: place, errno: EPERM)
        #expect(throws: ControlServerError.systemCall(call: "chown", path: scratch.socket, errno: EPERM, daemon: "turnstiled")) { try self.start(group: "daemon") }
        #expect(!FileManager.default.fileExists(atPath: scratch.socket))
        #expect(ControlServerError.systemCall(call: "chown", path: "/x", errno: EPERM, daemon: "turnstiled").description.contains("membership of the control group"))
    }

    @Test func aFaultArmedAtOneSocketIsNotTakenByAnotherServer() throws {
        let other = scratch.path + "/other.sock"
        defer { Syscalls.disarm(at: .path(other)) }
        let server = try start()
        defer { server.stop() }
        let otherServer = try ControlServer(path: other, group: nil, handler: recorder.handler)
        defer { otherServer.stop() }
        Syscalls.arm(.read, at: .path(other), errno: EIO)
        // This test's server reads on: the failure waits for the other's next read.
        let client = try TurnstileClient(path: scratch.socket)
        try client.send(TurnstileRequestLine(request: .status))
        #expect(try client.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .status(Fixtures.snapshot))
        #expect(Syscalls.pending(.read, at: .path(other)) == 1)
        // The other's read fails, and closes that connection only.
        let broken = try RawClient(path: other)
        broken.send(#"{"v":1,"command":"status"}"# + "\n")
        #expect(broken.isClosed())
        #expect(Syscalls.pending(.read, at: .path(other)) == 0)
    }

    @Test func failingAcceptReadAndWriteDoNotStopTheServer() throws {
        let server = try start()
        defer { server.stop() }
        // Out of descriptors: the server pauses, then accepts the waiting connection.
        Syscalls.arm(.accept, at: place, errno: EMFILE)
        let patient = try RawClient(path: scratch.socket)
        patient.send(#"{"v":1,"command":"status"}"# + "\n")
        #expect(try patient.reply().reply == .status(Fixtures.snapshot))
        #expect(server.statistics.systemCallFailures == 1)

        // A read error closes that connection only.
        Syscalls.arm(.read, at: place, errno: EIO)
        let broken = try RawClient(path: scratch.socket)
        broken.send(#"{"v":1,"command":"status"}"# + "\n")
        #expect(broken.isClosed())
        Syscalls.arm(.write, at: place, errno: EPIPE)
        let unlucky = try RawClient(path: scratch.socket)
        unlucky.send(#"{"v":1,"command":"status"}"# + "\n")
        #expect(unlucky.isClosed())

        let next = try TurnstileClient(path: scratch.socket)
        try next.send(TurnstileRequestLine(request: .status))
        #expect(try next.nextReply(timeoutSeconds: TestTimeouts.reply)?.reply == .status(Fixtures.snapshot))
    }

    // MARK: Other users (the tests run as root; setpriv becomes nobody)

    @Test(.enabled(if: geteuid() == 0, "needs root to run a client as nobody"))
    func theKernelRefusesAUserOutsideTheGroup() throws {
        let server = try start(group: "daemon")
        defer { server.stop() }
        let python = try Subprocess.asNobody(group: "nogroup", ["/usr/bin/python3", "-c", Subprocess.pythonClient, scratch.socket])
        #expect(python.output.trimmingCharacters(in: .whitespacesAndNewlines) == "connect-error \(EACCES)", "\(python.output)")

        let ctl = try Subprocess.asNobody(group: "nogroup", [try TurnstiledExecutable.path(), "ctl", "--socket", scratch.socket, "status"])
        #expect(ctl.status == 1)
        #expect(ctl.output.contains("permission denied on \(scratch.socket)"), "\(ctl.output)")
        #expect(ctl.output.contains("sudo usermod -aG turnstiled $USER"), "\(ctl.output)")
        #expect(recorder.requests.isEmpty)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to run a client as nobody"))
    func theDaemonRefusesAUserOutsideTheGroupEvenOnAnOpenSocket() throws {
        let server = try start(group: "daemon")
        defer { server.stop() }
        // An administrator loosened the mode: the peer check still refuses.
        #expect(chmod(scratch.socket, 0o666) == 0)
        let python = try Subprocess.asNobody(group: "nogroup", ["/usr/bin/python3", "-c", Subprocess.pythonClient, scratch.socket])
        let reply = try ControlReplyLine(parsing: Array(python.output.trimmingCharacters(in: .whitespacesAndNewlines).utf8), daemon: "turnstiled")
        guard case .failure(let failure) = reply.reply else {
            Issue.record("not refused: \(python.output)")
            return
        }
        #expect(failure.code == "permission_denied")
        #expect(failure.message.contains("user 65534"))
        #expect(failure.message.contains("sudo usermod -aG daemon $USER"))
        #expect(recorder.requests.isEmpty)
        #expect(server.statistics.refusedPeers == 1)

        let ctl = try Subprocess.asNobody(group: "nogroup", [try TurnstiledExecutable.path(), "ctl", "--socket", scratch.socket, "repair"])
        #expect(ctl.status == 1)
        #expect(ctl.output.contains("permission denied"), "\(ctl.output)")
        #expect(recorder.requests.isEmpty)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to run a client as nobody"))
    func aMemberOfTheGroupIsServed() throws {
        let server = try start(group: "nogroup")
        defer { server.stop() }
        let ctl = try Subprocess.asNobody(group: "nogroup", [try TurnstiledExecutable.path(), "ctl", "--socket", scratch.socket, "--json", "status"])
        #expect(ctl.status == 0, "\(ctl.output)")
        let reply = try ControlReplyLine(parsing: Array(ctl.output.trimmingCharacters(in: .whitespacesAndNewlines).utf8), daemon: "turnstiled")
        #expect(reply.reply == .status(Fixtures.snapshot))
        #expect(recorder.requests.map(\.1.uid) == [65534])
    }

    // MARK: turnstiled ctl

    @Test func ctlPrintsRepliesReadably() throws {
        let server = try start()
        defer { server.stop() }
        let turnstiled = try TurnstiledExecutable.path()
        let status = try Subprocess.run(turnstiled, ["ctl", "--socket", scratch.socket, "status"])
        #expect(status.status == 0)
        #expect(status.output.contains("state    locked  phase running"), "\(status.output)")
        #expect(status.output.contains("counters coins 1, passages 1"))
        #expect(status.output.contains("     1.250 s  locked --coin--> unlocked"), "\(status.output)")
        let emergency = try Subprocess.run(turnstiled, ["ctl", "--socket", scratch.socket, "emergency", "on"])
        #expect(emergency.output == "emergencyOn: queued for the controller\n")
        let refused = try Subprocess.run(turnstiled, ["ctl", "--socket", scratch.socket, "pulse", "push"])
        #expect(refused.status == 1)
        // Says the command was not applied (ctl's outcome line, which names it).
        #expect(refused.output == "turnstiled: pulse push not applied: pulse is for the simulated board only\n")
        #expect(recorder.requests.map(\.0) == [.status, .command(.emergencyOn), .pulse(.push)])
    }

    @Test func ctlFollowsEvents() throws {
        let server = try start()
        defer { server.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TurnstiledExecutable.path())
        process.arguments = ["ctl", "--socket", scratch.socket, "--json", "events", "--follow"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        #expect(eventually { self.recorder.requests.count == 1 })
        server.publish(TransitionSummary(time: 4, from: "locked", event: "coin", to: "unlocked"))
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        var text = ""
        #expect(eventually {
            var waiting = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            guard poll(&waiting, 1, 0) > 0 else { return false }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { text += String(decoding: chunk[..<count], as: UTF8.self) }
            return text.components(separatedBy: "\n").count >= 3
        }, "ctl printed: \(text)")
        // SIGKILL: the test runner's threads block SIGTERM and SIGINT, and a child inherits that.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let lines = text.split(separator: "\n").map { try? ControlReplyLine(parsing: Array($0.utf8), daemon: "turnstiled") }
        #expect(lines.first??.reply == .transitions(Fixtures.transitions))
        #expect(lines.dropFirst().first??.reply == .event(TransitionSummary(time: 4, from: "locked", event: "coin", to: "unlocked")))
    }

    @Test func ctlSaysWhatToDoWhenNothingListens() throws {
        let turnstiled = try TurnstiledExecutable.path()
        let missing = try Subprocess.run(turnstiled, ["ctl", "--socket", scratch.socket, "status"])
        #expect(missing.status == 1)
        #expect(missing.output.contains("is turnstiled running? is --control-socket the same?"), "\(missing.output)")
        let typo = try Subprocess.run(turnstiled, ["ctl", "--socket", scratch.socket, "stauts"])
        #expect(typo.status == 64)
        #expect(typo.output.contains(#"did you mean "status"?"#), "\(typo.output)")
        let noLine = try Subprocess.run(turnstiled, ["ctl", "pulse", "emergency"])
        #expect(noLine.status == 64)
        #expect(noLine.output.contains("emergency on|off"), "\(noLine.output)")
    }
}

final class ReceivedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var started = false
    var value: Int { lock.withLock { count } }
    var isFollowing: Bool { lock.withLock { started } }
    func increment() { lock.withLock { count += 1 } }
    func following() { lock.withLock { started = true } }
}

extension ControlReply {
    var failureCode: String? {
        if case .failure(let failure) = self { return failure.code }
        return nil
    }
}
