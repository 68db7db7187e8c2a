import ControllerTestSupport
import ControllerFSM
import Foundation
import Testing
import ControllerHost
import Turnstile
import TurnstileTestSupport
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

/// A directory of its own under /tmp, traversable by every user (so a client run as `nobody`
/// reaches the socket and only the socket's own mode decides), removed at the end.
final class ScratchDirectory {
    let path: String

    init() throws {
        path = "/tmp/ctl-tests-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        chmod(path, 0o755)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var socket: String { path + "/control.sock" }
}

/// The control protocol in the turnstile's words, which most of these tests speak.
typealias TurnstileRequest = ControlRequest<TurnstileApplication>
typealias TurnstileRequestLine = ControlRequestLine<TurnstileApplication>
typealias TurnstileClient = ControlClient<TurnstileApplication>

/// The daemon's side in tests: records each request and answers as the daemon would.
final class RecordingHandler: @unchecked Sendable {
    private let lock = MutexLock()
    private var seen: [(TurnstileRequest, PeerCredentials)] = []

    var requests: [(TurnstileRequest, PeerCredentials)] { lock.withLock { seen } }

    var handler: ControlServer.Handler<TurnstileApplication> {
        { [self] request, peer in
            lock.withLock { seen.append((request, peer)) }
            switch request {
            case .status: return .status(Fixtures.snapshot)
            case .command(let event): return .accepted(event.name)
            case .events: return .transitions(Fixtures.transitions)
            case .pulse(.push): return .failure(ControlFailure(code: "refused", message: "pulse is for the simulated board only"))
            case .pulse(let role): return .accepted("pulse \(role.rawValue)")
            case .level(let role, let on): return .accepted("set \(role.rawValue) \(on)")
            }
        }
    }
}

/// A client that sends raw bytes, to say what `ctl` never would.
final class RawClient {
    let descriptor: Int32
    private var buffered: [UInt8] = []

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = try #require(Syscalls.unixAddress(path))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(connected == 0, "connect to \(path): errno \(errno)")
    }

    deinit { close(descriptor) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }

    /// The next line, or nil at the end of the connection or after `timeout` seconds.
    func line(timeout: Double = TestTimeouts.reply) -> String? {
        let end = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                defer { buffered.removeSubrange(...newline) }
                return String(decoding: buffered[..<newline], as: UTF8.self)
            }
            let left = end.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var waiting = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            guard poll(&waiting, 1, Int32(left * 1000) + 1) > 0 else { return nil }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }

    func reply(timeout: Double = TestTimeouts.reply) throws -> ControlReplyLine {
        let text = try #require(line(timeout: timeout), "no reply line")
        return try ControlReplyLine(parsing: Array(text.utf8), daemon: "turnstiled")
    }

    /// Whether the server closed the connection (within `timeout`).
    func isClosed(timeout: Double = TestTimeouts.reply) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while end.timeIntervalSinceNow > 0 {
            var waiting = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            guard poll(&waiting, 1, Int32(end.timeIntervalSinceNow * 1000) + 1) > 0 else { return false }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return true }
        }
        return false
    }
}

/// A program run as another user through `setpriv`, with what it printed.
struct Subprocess {
    var status: Int32
    var output: String

    static func run(_ executable: String, _ arguments: [String]) throws -> Subprocess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readToEndRetryingInterrupts()
        process.waitUntilExit()
        return Subprocess(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// `arguments` as user `nobody` in group `group`, with no supplementary groups.
    static func asNobody(group: String, _ arguments: [String]) throws -> Subprocess {
        try run("/usr/bin/setpriv", ["--reuid=nobody", "--regid=\(group)", "--clear-groups"] + arguments)
    }

    /// A Python client (Debian's, which any user may run): sends a status request and prints
    /// the reply line, or `connect-error ERRNO`.
    static let pythonClient = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(sys.argv[1])
        except OSError as e:
            print("connect-error", e.errno); sys.exit(0)
        try:
            s.sendall(b'{"v":1,"command":"status"}\\n')
        except OSError:
            pass
        s.settimeout(5)
        data = b""
        while not data.endswith(b"\\n"):
            chunk = s.recv(4096)
            if not chunk: break
            data += chunk
        print(data.decode().strip())
        """
}

/// The built `turnstiled`, beside the test runner (`swift build --build-tests` builds it).
enum TurnstiledExecutable {
    static func path() throws -> String {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("turnstiled").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw NotBuilt()
    }

    struct NotBuilt: Error, CustomStringConvertible {
        var description: String { "turnstiled is not built beside the test runner; run swift build --build-tests" }
    }
}

/// The bounds this target's tests rely on when they meet real time. Each is
/// a wait for a condition that returns as soon as the condition holds: a bound costs nothing on
/// the happy path and only says how long a broken run takes to fail.
enum TestTimeouts {
    /// A reply, a close, a count reached, from a server in the test's own process (or `ctl`
    /// beside it): milliseconds in a plain debug run. CI runs the AddressSanitizer and
    /// ThreadSanitizer test runs at the same time on 2 cores (5–20 times slower), and a thread
    /// may be descheduled for a while at any moment: 30 s is far past both.
    static let reply: Double = 30
}

/// Waits up to `seconds` for `condition`.
func eventually(_ seconds: Double = TestTimeouts.reply, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}
