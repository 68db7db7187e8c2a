#if canImport(Glibc)
import Glibc
#endif

/// The sd_notify protocol, spoken directly: datagrams such as `READY=1` to the socket systemd
/// names in `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). Without that
/// variable (not started by systemd, or not `Type=notify`) every call does nothing.
///
/// `watchdog()` is called from the event loop: it sends a message built once, so it neither
/// allocates nor blocks (the socket is non-blocking; a lost datagram is retried next time).
public final class SystemdNotifier: @unchecked Sendable {
    // Safety: every field is set in init and only read after; sendto on one socket from several
    // threads is safe.
    private let socket: Int32
    private var address = sockaddr_un()
    private let addressLength: socklen_t
    /// How often systemd wants `WATCHDOG=1` (`$WATCHDOG_USEC`), if it watches.
    public let watchdogInterval: Duration?

    /// Reads `$NOTIFY_SOCKET` and `$WATCHDOG_USEC`; `environment` is for tests.
    public init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"] ?? ""
        var maximum = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < maximum, bytes[0] == UInt8(ascii: "/") || bytes[0] == UInt8(ascii: "@") else {
            socket = -1
            addressLength = 0
            watchdogInterval = nil
            return
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            // The abstract namespace: a leading NUL instead of '@'.
            if bytes[0] == UInt8(ascii: "@") { raw[0] = 0 }
        }
        maximum = MemoryLayout<sa_family_t>.size + bytes.count
        addressLength = socklen_t(maximum)
        socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        // WATCHDOG_PID, when set, must be ours: a child would otherwise feed its parent's dog.
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if forUs, let text = environment["WATCHDOG_USEC"], let micros = Int64(text), micros > 0 {
            watchdogInterval = .microseconds(micros)
        } else {
            watchdogInterval = nil
        }
    }

    deinit {
        if socket >= 0 { close(socket) }
    }

    /// Whether systemd listens.
    public var isActive: Bool { socket >= 0 }

    /// `READY=1` with a status line: the self-test passed.
    public func ready(status: String) { send("READY=1\nSTATUS=\(Self.oneLine(status))") }

    /// `STOPPING=1`: draining has begun.
    public func stopping(status: String) { send("STOPPING=1\nSTATUS=\(Self.oneLine(status))") }

    /// `STATUS=`: what `systemctl status` shows.
    public func status(_ text: String) { send("STATUS=\(Self.oneLine(text))") }

    /// A newline inside a status would start a new assignment.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    private static let watchdogMessage: StaticString = "WATCHDOG=1"

    /// `WATCHDOG=1`, from the event loop: a loop that stops turning stops feeding the dog and
    /// systemd restarts the daemon.
    public func watchdog() {
        guard socket >= 0 else { return }
        Self.watchdogMessage.withUTF8Buffer { message in
            withUnsafePointer(to: address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    _ = sendto(socket, message.baseAddress, message.count, Int32(MSG_NOSIGNAL), raw, addressLength)
                }
            }
        }
    }

    /// One datagram of `KEY=value` lines.
    public func send(_ message: String) {
        guard socket >= 0 else { return }
        var bytes = Array(message.utf8)
        let count = bytes.count
        _ = bytes.withUnsafeMutableBytes { buffer in
            withUnsafePointer(to: address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    sendto(socket, buffer.baseAddress, count, Int32(MSG_NOSIGNAL), raw, addressLength)
                }
            }
        }
    }
}
