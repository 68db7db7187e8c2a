import ControllerFSM
import ControllerHost
import Dispatch
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

/// The control socket: a Unix stream socket served by one dedicated thread, which reads request
/// lines, checks each peer, hands requests to the daemon's handler and streams published
/// transitions to followers.
///
/// The server only ever calls the handler: a malformed, oversized, slow or hostile client costs
/// a bounded buffer and gets an error reply; it never reaches the controller. Call ``stop()``
/// before the server is released.
public final class ControlServer: Sendable {
    /// Answers one request from an allowed peer, on the server's thread: it must not block
    /// (queue a command and return, or read a snapshot).
    public typealias Handler<App: ControllerApplication> = @Sendable (ControlRequest<App>, PeerCredentials) -> ControlReply

    /// One request line answered: parsed in the application's words and handed to its handler,
    /// or refused as malformed. `follows` is whether the connection now streams transitions.
    typealias Answer = @Sendable (_ line: [UInt8], PeerCredentials) -> (id: Int?, reply: ControlReply, malformed: Bool, follows: Bool)

    /// The socket's mode: owner and group read and write; connecting needs write permission, so
    /// the kernel refuses everyone else before the daemon sees them.
    public static let socketMode: mode_t = 0o660
    /// Connections the kernel queues before `accept`; the thread accepts as fast as they come.
    static let listenBacklog: Int32 = 16

    /// The socket's path.
    public let path: String
    /// Where its calls are made, as a test fails them (its path).
    private let place: Syscalls.Place
    /// The allowed group, when one was given.
    public let groupID: UInt32?
    private let shared: ControlServerShared
    private let listener: Int32
    private let wake: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)
    private let socketInode: UInt

    /// Creates the socket at `path` and starts serving it.
    ///
    /// A socket left at `path` by a daemon that died is removed first; any other file there is
    /// refused, as is a socket another process still answers on.
    /// - Parameters:
    ///   - path: where the socket is made (`/run/turnstiled/control.sock` for an installed daemon).
    ///   - limits: how many clients at once, how long a request may take, how much a slow
    ///     reader may leave unread; see ``ControlServerLimits``.
    ///   - group: the group to own the socket, whose members may use it; nil leaves the socket
    ///     the daemon's group and allows only root and the daemon's user.
    ///   - handler: answers each request, in the words of the application it serves; see
    ///     ``Handler``.
    ///   - onDrop: told (for the log) of each client dropped for not reading its replies.
    public init<App: ControllerApplication>(
        path: String, group: String?, limits: ControlServerLimits = .standard,
        onDrop: @escaping @Sendable (String) -> Void = { _ in }, handler: @escaping Handler<App>
    ) throws(ControlServerError) {
        let answer: Answer = { line, peer in
            let answered = ControlRequestLine<App>.answer(line) { handler($0, peer) }
            return (answered.reply.id, answered.reply.reply, answered.malformed, answered.follows)
        }
        guard let address = Syscalls.unixAddress(path) else {
            throw .pathTooLong(path: path, limit: Syscalls.maxSocketPathBytes)
        }
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        guard let status = Syscalls.fileStatus(directory.isEmpty ? "/" : directory), Syscalls.isDirectory(status) else {
            throw .directoryMissing(path: path, directory: directory.isEmpty ? "/" : directory, daemon: App.daemonName)
        }
        var resolvedGroup: UInt32?
        if let group {
            guard let id = Syscalls.groupID(named: group) else { throw .unknownGroup(group) }
            resolvedGroup = id
        }
        let groupID = resolvedGroup
        try Self.removeStaleSocket(at: path, address: address, daemon: App.daemonName)

        let place = Syscalls.Place.path(path)
        let listener = Syscalls.unixStreamSocket(at: place)
        guard listener >= 0 else { throw .systemCall(call: "socket", path: path, errno: Syscalls.errno, daemon: App.daemonName) }
        func fail(_ call: String, unlinking: Bool) -> ControlServerError {
            let code = Syscalls.errno
            Syscalls.close(listener)
            if unlinking { _ = Syscalls.unlink(path) }
            return .systemCall(call: call, path: path, errno: code, daemon: App.daemonName)
        }
        // Linux gives the bound file the socket's own mode (less the umask): set it first, so
        // the file is never more open than 0660, not even between bind and chmod.
        Syscalls.setMode(listener, Self.socketMode)
        guard Syscalls.bind(listener, address, at: place) == 0 else { throw fail("bind", unlinking: false) }
        if let groupID {
            guard Syscalls.chown(path, group: groupID) == 0 else { throw fail("chown", unlinking: true) }
        }
        // The umask may have taken the group's bits; the mode is the socket's contract.
        guard Syscalls.chmod(path, Self.socketMode) == 0 else { throw fail("chmod", unlinking: true) }
        guard Syscalls.listen(listener, backlog: Self.listenBacklog, at: place) == 0 else { throw fail("listen", unlinking: true) }
        guard Syscalls.makeNonBlocking(listener), let bound = Syscalls.fileStatus(path) else { throw fail("fcntl", unlinking: true) }
        guard let wake = Syscalls.wakePipe(at: place) else { throw fail("pipe", unlinking: true) }
        // Opened now, while there are descriptors to spare; the loop owns it from here.
        let reserve = Syscalls.openReserve(at: place)

        self.path = path
        self.place = place
        self.groupID = groupID
        self.listener = listener
        self.wake = wake
        self.socketInode = UInt(bound.st_ino)
        let shared = ControlServerShared(limits: limits)
        self.shared = shared
        let finished = self.finished
        let daemonUID = Syscalls.effectiveUserID
        DetachedThread.start(name: "\(App.daemonName)-control") {
            let loop = ControlServerLoop(
                listener: listener, wake: wake.read, reserve: reserve, place: place, shared: shared, answer: answer,
                authorize: { peer in
                    PeerAuthorization.isAllowed(peer, daemonUID: daemonUID, group: groupID, groupsOfUser: Syscalls.groups(ofUser:))
                },
                group: group, daemon: App.daemonName, onDrop: onDrop)
            loop.run()
            finished.signal()
        }
    }

    /// Removes a socket no process answers on (left by a daemon that died).
    private static func removeStaleSocket(at path: String, address: sockaddr_un, daemon: String) throws(ControlServerError) {
        guard let existing = Syscalls.fileStatus(path) else { return }
        guard Syscalls.isSocket(existing) else { throw .notASocket(path: path, daemon: daemon) }
        let probe = Syscalls.unixStreamSocket(at: .path(path))
        if probe >= 0 {
            let answered = Syscalls.connect(probe, address) == 0
            Syscalls.close(probe)
            if answered { throw .inUse(path: path, daemon: daemon) }
        }
        guard Syscalls.unlink(path) == 0 else { throw .systemCall(call: "unlink (of a stale socket)", path: path, errno: Syscalls.errno, daemon: daemon) }
    }

    /// Sends `event` to every follower, without waiting: it is queued for the server's thread,
    /// which drops a follower that has fallen ``ControlServerLimits/maxBacklogBytes`` behind.
    public func publish(_ event: TransitionSummary) {
        shared.lock.withLock {
            guard !shared.stopping else { return }
            guard shared.pending.count < shared.limits.maxPendingEvents else {
                shared.statistics.lostEvents += 1
                return
            }
            shared.pending.append(event)
            if shared.pending.count == 1 { Syscalls.wake(wake.write, at: place) }
        }
    }

    /// Closes every connection, stops the thread (waiting for it) and removes the socket file.
    /// Safe to call more than once.
    public func stop() {
        let first = shared.lock.withLock {
            defer { shared.stopping = true }
            if !shared.stopping { Syscalls.wake(wake.write, at: place) }
            return !shared.stopping
        }
        guard first else { return }
        finished.wait()
        Syscalls.close(listener)
        Syscalls.close(wake.read)
        Syscalls.close(wake.write)
        // Only our own socket: a daemon started since may have replaced it.
        if let status = Syscalls.fileStatus(path), Syscalls.isSocket(status), UInt(status.st_ino) == socketInode {
            _ = Syscalls.unlink(path)
        }
    }

    /// What the server has done so far.
    public var statistics: ControlServerStatistics {
        shared.lock.withLock { shared.statistics }
    }
}

/// What the publishers and the server thread share, under `lock`.
final class ControlServerShared: @unchecked Sendable {
    let lock = MutexLock()
    let limits: ControlServerLimits
    var pending: [TransitionSummary] = []
    var stopping = false
    var statistics = ControlServerStatistics()

    init(limits: ControlServerLimits) {
        self.limits = limits
        pending.reserveCapacity(limits.maxPendingEvents)
    }
}
