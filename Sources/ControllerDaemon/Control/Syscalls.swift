import ControllerFSM

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every system call the daemon library makes (the control socket and its client, the flight
/// recorder, the systemd notifier, the log handler), behind one thin layer
/// (as in the GPIO backend and swift-system): one place to read what it asks of the kernel, and
/// one place where a test makes a call fail (`arm(_:at:errno:count:)`, on ControllerFSM's
/// `SyscallFaults`) to see the daemon survive it.
/// Nothing outside this layer calls libc; the others use its constants and types only.
///
/// A failure is armed at a ``Place``: the socket or file of the object under test (a control
/// server, its client, a flight recorder, a notifier) or the descriptor a log handler writes to.
/// Every call an object makes names its place, so a test fails its own server's `accept` while
/// the other servers in the process (other tests', in-process daemons') accept on: the tests
/// need not take turns.
enum Syscalls {
    /// The calls a test can make fail.
    enum Call: Hashable, Sendable {
        /// The control server's socket calls.
        case socket, bind, listen, accept, poll, read, write, peerCredentials, chown, chmod, unlink
        /// The flight recorder's file: `open`, `write(2)` and `fsync` (`write` above is a
        /// socket's send).
        case open, fileWrite, fsync
        /// The flight recorder's look at what is already at its path (open and read for the
        /// header, `stat`/`fstat`) and its rotation of an earlier recording.
        case fileRead, fileStatus, rename
        /// The control server's wake-up pipe: making it, and the one-byte write that wakes its
        /// reader. (The command inbox's wake-up is the runtime's: `WakeUpDescriptor`.)
        case pipe, wake
        /// `turnstiled ctl`'s side of the control socket. Its own cases: a test runs client and
        /// server in one process, and a fault armed for one side must not be taken by the other.
        case clientSend, clientPoll, clientRead
        /// The systemd notifier's datagram socket and its `sendto`.
        case notifySocket, notifySend
        /// The log handler's write to standard error.
        case logWrite
        /// The control server's reserve descriptor (`/dev/null`), opened again after use.
        case reserve
    }

    /// Where a call is made, as a test names it to fail it there.
    enum Place: Hashable, Sendable {
        /// The control socket (the server's and its client's calls), the flight recorder's
        /// file, the notifier's or the journal's socket.
        case path(String)
        /// A log handler's descriptor.
        case descriptor(Int32)
    }

    /// A call at its place: what a test arms.
    struct Fault: Hashable, Sendable {
        let call: Call
        let place: Place
    }

    /// Failures tests arm; each fires once, in the order armed. Armed, not scoped to a task: the
    /// server's and the notifier's calls are made on threads no task reaches.
    static let injected = SyscallFaults<Fault>()

    /// Makes the next `count` calls of `call` at `place` fail with `code`, on whichever thread.
    static func arm(_ call: Call, at place: Place, errno code: Int32, count: Int = 1) {
        injected.arm(Fault(call: call, place: place), errno: code, count: count)
    }

    /// How many armed failures of `call` at `place` are still to be taken.
    static func pending(_ call: Call, at place: Place) -> Int {
        injected.pending(Fault(call: call, place: place))
    }

    /// Forgets every failure armed at `place` (a test's own, at its end).
    static func disarm(at place: Place) {
        injected.disarm { $0.place == place }
    }

    static var errno: Int32 {
        get { SystemErrno.current }
        set { SystemErrno.current = newValue }
    }

    /// True, with `errno` set, when a test armed a failure of `call` at `place` (made only
    /// when something is armed).
    static func fails(_ call: Call, at place: @autoclosure () -> Place) -> Bool {
        injected.fails(Fault(call: call, place: place()))
    }

    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// The system's text for `code`, e.g. "No space left on device".
    static func describe(_ code: Int32) -> String {
        SystemErrno.describe(code)
    }

    static var processID: Int32 { getpid() }

    /// A new close-on-exec Unix stream socket.
    static func unixStreamSocket(at place: Place) -> Int32 {
        if fails(.socket, at: place) { return -1 }
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

    static func bind(_ descriptor: Int32, _ address: sockaddr_un, at place: Place) -> Int32 {
        if fails(.bind, at: place) { return -1 }
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

    static func listen(_ descriptor: Int32, backlog: Int32, at place: Place) -> Int32 {
        if fails(.listen, at: place) { return -1 }
        return Glibc.listen(descriptor, backlog)
    }

    /// The next connection, non-blocking and close-on-exec; -1 with `errno` (`EAGAIN` when none waits).
    static func accept(_ descriptor: Int32, at place: Place) -> Int32 {
        if fails(.accept, at: place) { return -1 }
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

    /// A descriptor held only to be given up when the process runs out (`/dev/null`, read-only,
    /// close-on-exec); -1 with `errno` set.
    static func openReserve(at place: Place) -> Int32 {
        if fails(.reserve, at: place) { return -1 }
        return Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    /// The socket's own mode, before `bind` gives it to the file.
    static func setMode(_ descriptor: Int32, _ mode: mode_t) {
        _ = fchmod(descriptor, mode)
    }

    /// Sets `O_NONBLOCK` and `FD_CLOEXEC`.
    static func makeNonBlocking(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
        return fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0
    }

    /// Waits for `descriptors` up to `milliseconds` (-1: without limit). `fault`: the armed
    /// failure it takes (the client passes its own).
    static func poll(_ descriptors: inout [pollfd], milliseconds: Int32, fault: Call = .poll, at place: Place) -> Int32 {
        if fails(fault, at: place) { return -1 }
        return descriptors.withUnsafeMutableBufferPointer {
            Glibc.poll($0.baseAddress, nfds_t($0.count), milliseconds)
        }
    }

    /// `fault`: the armed failure it takes (the client passes its own).
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, fault: Call = .read, at place: Place) -> Int {
        if fails(fault, at: place) { return -1 }
        return Glibc.read(descriptor, buffer.baseAddress, buffer.count)
    }

    /// Writes without ever raising `SIGPIPE` (a client that hung up is an error return, not the
    /// daemon's death) and without blocking.
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at place: Place) -> Int {
        if fails(.write, at: place) { return -1 }
        return Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
    }

    /// The client's send: blocking (it has nothing else to do), and without `SIGPIPE` either (a
    /// daemon that hung up is an error to report, not the end of `turnstiled ctl`).
    static func clientSend(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at place: Place) -> Int {
        if fails(.clientSend, at: place) { return -1 }
        return Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    }

    /// A non-blocking, close-on-exec Unix datagram socket: the systemd notifier's.
    static func unixDatagramSocket(at place: Place) -> Int32 {
        if fails(.notifySocket, at: place) { return -1 }
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        return Glibc.socket(AF_UNIX, type, 0)
    }

    /// One datagram to `address` (of `length` bytes: an abstract name is shorter than the
    /// structure); how many bytes went, or -1 with `errno` set.
    static func sendDatagram(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, to address: UnsafePointer<sockaddr_un>, length: socklen_t, at place: Place) -> Int {
        if fails(.notifySend, at: place) { return -1 }
        return address.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Glibc.sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
        }
    }

    /// The connected peer's process, user and group as the kernel recorded them at `connect`
    /// (`SO_PEERCRED`), or nil with `errno` set.
    static func peerCredentials(_ descriptor: Int32, at place: Place) -> PeerCredentials? {
        if fails(.peerCredentials, at: place) { return nil }
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: Glibc's module hides it behind
        // _GNU_SOURCE, and its layout is fixed by the kernel ABI.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
              Int(length) == MemoryLayout.size(ofValue: credentials) else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    static func chown(_ path: String, group: UInt32) -> Int32 {
        if fails(.chown, at: .path(path)) { return -1 }
        return Glibc.chown(path, uid_t.max, group)  // uid -1: the owner stays
    }

    static func chmod(_ path: String, _ mode: mode_t) -> Int32 {
        if fails(.chmod, at: .path(path)) { return -1 }
        return Glibc.chmod(path, mode)
    }

    static func unlink(_ path: String) -> Int32 {
        if fails(.unlink, at: .path(path)) { return -1 }
        return Glibc.unlink(path)
    }

    /// The file's `stat` without following a symbolic link, or nil with `errno` set.
    static func fileStatus(_ path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }

    static func isSocket(_ status: stat) -> Bool { status.st_mode & S_IFMT == S_IFSOCK }
    static func isDirectory(_ status: stat) -> Bool { status.st_mode & S_IFMT == S_IFDIR }
}
