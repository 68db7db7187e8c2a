#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why the control socket could not be opened. Each names the path or group and the fix; `daemon`
/// is the daemon opening it (`ControllerApplication/daemonName`, `turnstiled`), as the fix names it.
public enum ControlServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The socket's directory does not exist (or is not a directory).
    case directoryMissing(path: String, directory: String, daemon: String)
    /// The path is too long for a Unix socket address.
    case pathTooLong(path: String, limit: Int)
    /// Something other than a socket is at the path; it is left alone.
    case notASocket(path: String, daemon: String)
    /// Another process (another instance of the daemon?) answers on the socket.
    case inUse(path: String, daemon: String)
    /// The group to give the socket does not exist.
    case unknownGroup(String)
    /// A system call failed.
    case systemCall(call: String, path: String, errno: Int32, daemon: String)

    public var description: String {
        switch self {
        case .directoryMissing(let path, let directory, let daemon):
            return "cannot create the control socket \(path): the directory \(directory) does not exist; create it (systemd: RuntimeDirectory=\(daemon)) or choose another --control-socket"
        case .pathTooLong(let path, let limit):
            return "the control socket path \(path) is longer than the \(limit) bytes a Unix socket address holds (or is empty); choose a shorter --control-socket"
        case .notASocket(let path, let daemon):
            return "\(path) exists and is not a socket; \(daemon) will not remove it: move it away or choose another --control-socket"
        case .inUse(let path, let daemon):
            return "another process answers on the control socket \(path) (is \(daemon) already running?); stop it or choose another --control-socket"
        case .unknownGroup(let name):
            return "the control group \"\(name)\" does not exist; create it (sudo groupadd --system \(name)) or choose another --control-group"
        case .systemCall(let call, let path, let code, let daemon):
            let reason = Syscalls.describe(code)
            let fix = code == EACCES || code == EPERM
                ? "; \(daemon) needs write access to the socket's directory (and membership of the control group to give it the socket)"
                : ""
            return "cannot set up the control socket \(path): \(call) failed: \(reason)\(fix)"
        }
    }
}
