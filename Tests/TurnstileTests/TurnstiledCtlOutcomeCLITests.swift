import ControllerTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What `ctl` says became of a command that did not come back accepted: not applied, or its
/// fate unknown — never a bare failure for a command the daemon may have taken.
@Suite("turnstiled ctl: a command's outcome is said plainly (CLI)")
struct TurnstiledCtlOutcomeCLITests {
    @Test func noDaemonMeansNotApplied() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.url.appendingPathComponent("none.sock").path
        let run = try await Turnstiled.run(["ctl", "--socket", socket, "pulse", "coin"])
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("pulse coin not applied (nothing was sent)"), "\(run)")
    }

    @Test func aRefusalMeansNotApplied() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.url.appendingPathComponent("c.sock").path
        let server = try OneShotServer(path: socket, reply: #"{"v":1,"ok":false,"error":{"code":"inbox_full","message":"the inbox is full"}}"# + "\n")
        let run = try await Turnstiled.run(["ctl", "--socket", socket, "fault"])
        server.wait()
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("fault not applied: the inbox is full"), "\(run)")
    }

    @Test func sentAndNoAnswerMeansUnknown() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.url.appendingPathComponent("c.sock").path
        // Reads the request and hangs up without a word: the daemon may have queued it.
        let server = try OneShotServer(path: socket, reply: nil)
        let run = try await Turnstiled.run(["ctl", "--socket", socket, "pulse", "coin"])
        server.wait()
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("pulse coin: fate unknown"), "\(run)")
        #expect(run.stderr.contains("before sending it again"), "\(run)")
        #expect(server.requests == 1, "ctl sent the command again by itself")
    }
}

/// A Unix socket that takes connections until `wait` (called once the client has exited), reads
/// each request line and answers it with `reply` (or closes without one); counts the requests.
/// No time window: it used to listen for a fixed 2 s, which a client slow to start on a loaded
/// machine could miss altogether. A connection the client made is in the socket's queue by the
/// time it exits, and the thread takes every queued one before it stops.
final class OneShotServer: @unchecked Sendable {
    // Safety: `count` is written by the thread before `done` is signalled and read after;
    // `stopping` is guarded by `lock`.
    private let done = DispatchSemaphore(value: 0)
    private var count = 0
    private let lock = NSLock()
    private var stopping = false
    var requests: Int { count }

    init(path: String, reply: String?) throws {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listener, 4) == 0, "cannot listen on \(path)")
        let thread = Thread { [self] in
            // Connections until told to stop, so a client that tried again would be counted:
            // once told (the client has exited, its connections are queued), a last poll that
            // finds none queued ends it.
            while true {
                let told = lock.withLock { stopping }
                var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, told ? 0 : 100) > 0 else {
                    if told { break }
                    continue
                }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                var buffer = [UInt8](repeating: 0, count: 1024)
                var received: [UInt8] = []
                while !received.contains(UInt8(ascii: "\n")) {
                    let got = read(connection, &buffer, buffer.count)
                    if got <= 0 { break }
                    received += buffer[..<got]
                }
                if received.contains(UInt8(ascii: "\n")) { count += 1 }
                if let reply { _ = reply.withCString { write(connection, $0, strlen($0)) } }
                close(connection)
            }
            close(listener)
            done.signal()
        }
        thread.start()
    }

    /// Stops taking connections (after any already queued) and waits for the thread.
    func wait() {
        lock.withLock { stopping = true }
        done.wait()
    }
}
