import ControllerFSM

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every system call the daemon library makes (the control socket and the flight recorder),
/// behind one thin layer (as in the GPIO backend and swift-system): one place to read what it
/// asks of the kernel, and one place where a test makes a call fail (``InjectedFaults``) to see
/// the daemon survive it.
enum Syscalls {
    /// The calls a test can make fail.
    enum Call: Hashable, Sendable {
        case socket, bind, listen, accept, poll, read, write, peerCredentials, chown, chmod, unlink
        /// The flight recorder's file: `open`, `write(2)` and `fsync` (`write` above is a
        /// socket's send).
        case open, fileWrite, fsync
    }

    /// Failures tests arm; each fires once, in the order armed.
    static let injected = InjectedFaults()

    static var errno: Int32 {
        get {
            #if canImport(Glibc)
            Glibc.errno
            #else
            Musl.errno
            #endif
        }
        set {
            #if canImport(Glibc)
            Glibc.errno = newValue
            #else
            Musl.errno = newValue
            #endif
        }
    }

    /// -1 with `errno` set when a test armed a failure of `call`.
    private static func fails(_ call: Call) -> Bool {
        guard let code = injected.take(call) else { return false }
        errno = code
        return true
    }

    /// A new close-on-exec Unix stream socket.
    static func unixStreamSocket() -> Int32 {
        if fails(.socket) { return -1 }
        return Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    /// The address for `path`, or nil when it does not fit `sun_path` (with its terminating NUL).
    static func unixAddress(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        return address
    }

    /// The longest socket path the kernel takes.
    static var maxSocketPathBytes: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1 }

    static func bind(_ descriptor: Int32, _ address: sockaddr_un) -> Int32 {
        if fails(.bind) { return -1 }
        var address = address
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    static func connect(_ descriptor: Int32, _ address: sockaddr_un) -> Int32 {
        var address = address
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    static func listen(_ descriptor: Int32, backlog: Int32) -> Int32 {
        if fails(.listen) { return -1 }
        return Glibc.listen(descriptor, backlog)
    }

    /// The next connection, non-blocking and close-on-exec; -1 with `errno` (`EAGAIN` when none waits).
    static func accept(_ descriptor: Int32) -> Int32 {
        if fails(.accept) { return -1 }
        let connection = Glibc.accept(descriptor, nil, nil)
        guard connection >= 0 else { return -1 }
        guard makeNonBlocking(connection) else {
            let code = errno
            _ = Glibc.close(connection)
            errno = code
            return -1
        }
        return connection
    }

    /// Sets `O_NONBLOCK` and `FD_CLOEXEC`.
    static func makeNonBlocking(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
        return fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0
    }

    /// Waits for `descriptors` up to `milliseconds` (-1: without limit).
    static func poll(_ descriptors: inout [pollfd], milliseconds: Int32) -> Int32 {
        if fails(.poll) { return -1 }
        return descriptors.withUnsafeMutableBufferPointer {
            Glibc.poll($0.baseAddress, nfds_t($0.count), milliseconds)
        }
    }

    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if fails(.read) { return -1 }
        return Glibc.read(descriptor, buffer.baseAddress, buffer.count)
    }

    /// Writes without ever raising `SIGPIPE` (a client that hung up is an error return, not the
    /// daemon's death) and without blocking.
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        if fails(.write) { return -1 }
        return Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
    }

    /// The connected peer's process, user and group as the kernel recorded them at `connect`
    /// (`SO_PEERCRED`), or nil with `errno` set.
    static func peerCredentials(_ descriptor: Int32) -> PeerCredentials? {
        if fails(.peerCredentials) { return nil }
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: Glibc's module hides it behind
        // _GNU_SOURCE, and its layout is fixed by the kernel ABI.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
              Int(length) == MemoryLayout.size(ofValue: credentials) else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    static func chown(_ path: String, group: UInt32) -> Int32 {
        if fails(.chown) { return -1 }
        return Glibc.chown(path, uid_t.max, group)  // uid -1: the owner stays
    }

    static func chmod(_ path: String, _ mode: mode_t) -> Int32 {
        if fails(.chmod) { return -1 }
        return Glibc.chmod(path, mode)
    }

    static func unlink(_ path: String) -> Int32 {
        if fails(.unlink) { return -1 }
        return Glibc.unlink(path)
    }

    /// The file's `stat` without following a symbolic link, or nil with `errno` set.
    static func fileStatus(_ path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }

    static func isSocket(_ status: stat) -> Bool { status.st_mode & S_IFMT == S_IFSOCK }
    static func isDirectory(_ status: stat) -> Bool { status.st_mode & S_IFMT == S_IFDIR }

    /// A pipe whose ends are non-blocking and close-on-exec: the server thread's wake-up call.
    static func wakePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        guard makeNonBlocking(ends[0]), makeNonBlocking(ends[1]) else {
            _ = Glibc.close(ends[0])
            _ = Glibc.close(ends[1])
            return nil
        }
        return (ends[0], ends[1])
    }

    /// Writes one byte to the wake pipe. A full pipe already has a wake-up waiting, so a failed
    /// write needs no retry (and no test makes it fail).
    static func wake(_ writeEnd: Int32) {
        var byte: UInt8 = 1
        _ = Glibc.write(writeEnd, &byte, 1)
    }

    /// Takes every byte waiting in the (non-blocking) wake pipe.
    static func drainWake(_ readEnd: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ Glibc.read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// `path` created or truncated, open for writing, close-on-exec; -1 with `errno` set.
    static func createForWriting(_ path: String, mode: mode_t) -> Int32 {
        if fails(.open) { return -1 }
        return Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    }

    /// A plain `write(2)` to a file; how many bytes were written, or -1 with `errno` set.
    static func writeFile(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        if fails(.fileWrite) { return -1 }
        return Glibc.write(descriptor, bytes.baseAddress, bytes.count)
    }

    /// Makes what was written to `descriptor` durable; -1 with `errno` set.
    static func fsync(_ descriptor: Int32) -> Int32 {
        if fails(.fsync) { return -1 }
        return Glibc.fsync(descriptor)
    }

    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// The system's text for `code`, e.g. "No space left on device".
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    static var effectiveUserID: UInt32 { geteuid() }

    /// The group called `name`, or nil when the system has none.
    static func groupID(named name: String) -> UInt32? {
        var group = group()
        var found: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: lookupBufferBytes)
        let result = getgrnam_r(name, &group, &buffer, buffer.count, &found)
        guard result == 0, found != nil else { return nil }
        return group.gr_gid
    }

    /// Every group `uid` belongs to by the user and group databases (its primary group and the
    /// ones `/etc/group` lists it in); empty for a user with no entry.
    static func groups(ofUser uid: UInt32) -> [UInt32] {
        var user = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: lookupBufferBytes)
        guard getpwuid_r(uid, &user, &buffer, buffer.count, &found) == 0, found != nil, let name = user.pw_name else { return [] }
        var count: Int32 = Int32(maxGroupsPerUser)
        var groups = [gid_t](repeating: 0, count: maxGroupsPerUser)
        guard getgrouplist(name, user.pw_gid, &groups, &count) >= 0 else { return [user.pw_gid] }
        return Array(groups.prefix(Int(count)))
    }

    /// Room for one passwd or group entry's strings: glibc's own sysconf suggestion is 1 KiB;
    /// 16 KiB fits groups with many members.
    private static let lookupBufferBytes = 16_384
    /// Linux's NGROUPS_MAX is 65536, but a user in more than 1024 groups is not one to expect;
    /// getgrouplist reports -1 and the check falls back to the primary group.
    private static let maxGroupsPerUser = 1024
}

/// Failures armed by tests, each taken once by the next matching call.
final class InjectedFaults: @unchecked Sendable {
    private let lock = MutexLock()
    private var armed: [Syscalls.Call: [Int32]] = [:]

    /// Makes the next `count` calls of `call` fail with `code`.
    func arm(_ call: Syscalls.Call, errno code: Int32, count: Int = 1) {
        lock.withLock {
            armed[call, default: []] += Array(repeating: code, count: count)
        }
    }

    func disarmAll() {
        lock.withLock {
            armed = [:]
        }
    }

    func take(_ call: Syscalls.Call) -> Int32? {
        lock.withLock {
            guard var codes = armed[call], !codes.isEmpty else { return nil }
            let code = codes.removeFirst()
            armed[call] = codes
            return code
        }
    }
}
