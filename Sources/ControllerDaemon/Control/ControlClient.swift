import ControllerHost
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One connection to the control socket of `App`'s daemon, as its `ctl` uses it: send request
/// lines, read reply lines. Blocking; for one client thread.
public final class ControlClient<App: ControllerApplication> {
    /// The default socket of an installed daemon (`/run/turnstiled/control.sock`).
    public static var defaultSocketPath: String { "/run/\(App.daemonName)/control.sock" }
    /// The longest reply line read (`ControlClientLimits`).
    public static var maxReplyBytes: Int { ControlClientLimits.maxReplyBytes }

    public let path: String
    private let descriptor: Int32
    private var buffered: [UInt8] = []

    /// Connects to the daemon's socket at `path`.
    public init(path: String) throws(ControlClientError) {
        self.path = path
        guard let address = Syscalls.unixAddress(path) else { throw .pathTooLong(path: path) }
        let descriptor = Syscalls.unixStreamSocket(at: .path(path))
        guard descriptor >= 0 else { throw .system(path: path, call: "socket", errno: Syscalls.errno, daemon: App.daemonName) }
        guard Syscalls.connect(descriptor, address) == 0 else {
            let code = Syscalls.errno
            Syscalls.close(descriptor)
            switch code {
            case ENOENT, ECONNREFUSED: throw .notRunning(path: path, daemon: App.daemonName)
            case EACCES, EPERM: throw .permissionDenied(path: path, reply: nil, daemon: App.daemonName)
            default: throw .system(path: path, call: "connect", errno: code, daemon: App.daemonName)
            }
        }
        self.descriptor = descriptor
    }

    deinit { Syscalls.close(descriptor) }

    /// Sends one request.
    public func send(_ request: ControlRequestLine<App>) throws(ControlClientError) {
        let bytes = request.encoded()
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Syscalls.clientSend(descriptor, $0, at: .path(path)) }
            if written < 0 && Syscalls.errno == EINTR { continue }
            guard written > 0 else {
                // Taken now: the look for a refusal below makes calls of its own.
                let code = Syscalls.errno
                // The daemon may have refused the connection before reading: its reply says why.
                if let reply = try? nextReply(timeoutSeconds: 1), case .failure(let failure) = reply.reply {
                    throw failure.code == "permission_denied" ? .permissionDenied(path: path, reply: failure, daemon: App.daemonName) : .refused(failure)
                }
                throw .system(path: path, call: "send", errno: code, daemon: App.daemonName)
            }
            offset += written
        }
    }

    static var readChunkBytes: Int { ControlClientLimits.readChunkBytes }

    /// The next reply line, or nil when the daemon closed the connection. Waits up to
    /// `timeoutSeconds` (nil: without limit, for a follower).
    /// `seconds` as poll(2) takes them: rounded up, held within 0...Int32.max (a day is
    /// 86,400,000), and 0 for NaN: any Double a caller passes waits, never traps converting.
    static func pollMilliseconds(_ seconds: Double) -> Int32 {
        let milliseconds = (seconds * 1000).rounded(.up)
        guard !milliseconds.isNaN else { return 0 }
        return Int32(min(max(milliseconds, 0), Double(Int32.max)))
    }

    public func nextReply(timeoutSeconds: Double?) throws(ControlClientError) -> ControlReplyLine? {
        var chunk = [UInt8](repeating: 0, count: Self.readChunkBytes)
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffered[..<newline]
                defer { buffered.removeSubrange(...newline) }
                do {
                    return try ControlReplyLine(parsing: line, daemon: App.daemonName)
                } catch {
                    throw .badReply(path: path, error, daemon: App.daemonName)
                }
            }
            guard buffered.count <= Self.maxReplyBytes else { throw .badReply(path: path, .requestTooLong(limit: Self.maxReplyBytes), daemon: App.daemonName) }
            var waiting = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            let milliseconds = timeoutSeconds.map(Self.pollMilliseconds) ?? -1
            let ready = Syscalls.poll(&waiting, milliseconds: milliseconds, fault: .clientPoll, at: .path(path))
            if ready < 0 && Syscalls.errno == EINTR { continue }
            guard ready > 0 else {
                if ready == 0 { throw .timedOut(path: path, seconds: timeoutSeconds ?? 0, daemon: App.daemonName) }
                throw .system(path: path, call: "poll", errno: Syscalls.errno, daemon: App.daemonName)
            }
            let count = chunk.withUnsafeMutableBytes { Syscalls.read(descriptor, into: $0, fault: .clientRead, at: .path(path)) }
            if count < 0 && Syscalls.errno == EINTR { continue }
            if count < 0 && Syscalls.errno == ECONNRESET { return nil }
            guard count >= 0 else { throw .system(path: path, call: "read", errno: Syscalls.errno, daemon: App.daemonName) }
            if count == 0 { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }
}

/// The client's bounds, beside it (a generic class holds no stored statics).
enum ControlClientLimits {
    /// The longest reply line read: a status with its last transitions is a few KiB; 1 MiB
    /// bounds what a misbehaving server could make the client hold.
    static let maxReplyBytes = 1 << 20
    /// Bytes read from the socket at a time: a page, many reply lines.
    static let readChunkBytes = 4096
}

/// Why `ctl` could not get an answer, with what to do about it. `daemon` is the daemon asked
/// (`ControllerApplication/daemonName`, `turnstiled`), as the fix names it.
public enum ControlClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No socket at the path, or nothing listening on it.
    case notRunning(path: String, daemon: String)
    /// The kernel (the socket's mode) or the daemon (its peer check) refused this user.
    case permissionDenied(path: String, reply: ControlFailure?, daemon: String)
    /// The daemon refused the request; its message says why.
    case refused(ControlFailure)
    /// No reply in time.
    case timedOut(path: String, seconds: Double, daemon: String)
    /// The reply was not the protocol's.
    case badReply(path: String, ControlProtocolError, daemon: String)
    case pathTooLong(path: String)
    case system(path: String, call: String, errno: Int32, daemon: String)

    public var description: String {
        switch self {
        case .notRunning(let path, let daemon):
            return "cannot connect to \(path): no control socket there; is \(daemon) running? is --control-socket the same? (\(daemon) ctl --socket PATH)"
        case .permissionDenied(let path, let reply, let daemon):
            let detail = reply.map { " (\(daemon) says: \($0.message))" } ?? ""
            return "permission denied on \(path)\(detail); add yourself to group \(daemon): sudo usermod -aG \(daemon) $USER, then log in again"
        case .refused(let failure):
            return failure.message
        case .timedOut(let path, let seconds, let daemon):
            return "\(daemon) did not answer on \(path) within \(seconds) s; is its event loop stuck? (systemctl status \(daemon))"
        case .badReply(let path, let error, let daemon):
            return "\(daemon)'s reply on \(path) is not understood: \(error.message)"
        case .pathTooLong(let path):
            return "the socket path \(path) is longer than a Unix socket address holds (\(Syscalls.maxSocketPathBytes) bytes); use a shorter --socket"
        case .system(let path, let call, let code, let daemon):
            return "cannot talk to \(daemon) on \(path): \(call) failed: \(Syscalls.describe(code))"
        }
    }
}
