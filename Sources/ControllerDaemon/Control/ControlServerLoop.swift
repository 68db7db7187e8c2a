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

/// The server thread's work: one `poll` over the listening socket, the wake-up pipe and every
/// connection, all non-blocking, so no client can hold the thread.
final class ControlServerLoop {
    /// Bytes read from a connection per wake-up: a request is far shorter, and a client sending
    /// more only waits for the next round, which keeps the others served.
    static let readChunkBytes = 4096
    /// Connections accepted per wake-up, so a flood of connects cannot starve the ones open.
    static let maxAcceptsPerWake = 16
    /// How long accepting pauses after `accept` or `poll` failed for want of descriptors or
    /// memory: long enough not to spin on a condition that persists, short enough to go unnoticed.
    static let failurePauseNanoseconds: UInt64 = 100_000_000

    private struct Connection {
        let descriptor: Int32
        let peer: PeerCredentials
        var input: [UInt8] = []
        /// Discarding the rest of an oversized line, up to its newline.
        var skipping = false
        var output: [UInt8] = []
        /// When the next complete request must have arrived; nil for a follower.
        var deadline: UInt64?
        var following = false
        /// The client shut down its writing side: answer what it sent, then close.
        var readClosed = false
        /// Dropped for falling behind: its last line (saying so) is going out, then it closes.
        var dropping = false
        var closed = false
    }

    private let listener: Int32
    private let wake: Int32
    /// Where its calls are made, as a test fails them: the socket's path.
    private let place: Syscalls.Place
    private let shared: ControlServerShared
    private let limits: ControlServerLimits
    private let answer: ControlServer.Answer
    private let authorize: (PeerCredentials) -> Bool
    private let group: String?
    /// The daemon's name, as its refusals say it (`turnstiled`).
    private let daemon: String
    /// Told each client dropped for falling behind, for the daemon's log.
    private let onDrop: @Sendable (String) -> Void
    private var connections: [Connection] = []
    private var acceptPausedUntil: UInt64 = 0
    /// A descriptor kept for the moment the process has none left: given up to accept the
    /// client waiting and tell it so, instead of leaving it to time out without a word (and a
    /// command's fate unknown); -1 while it could not be opened again.
    private var reserve: Int32

    init(listener: Int32, wake: Int32, reserve: Int32, place: Syscalls.Place, shared: ControlServerShared, answer: @escaping ControlServer.Answer,
         authorize: @escaping (PeerCredentials) -> Bool, group: String?, daemon: String, onDrop: @escaping @Sendable (String) -> Void) {
        self.listener = listener
        self.wake = wake
        self.place = place
        self.shared = shared
        self.limits = shared.limits
        self.answer = answer
        self.authorize = authorize
        self.group = group
        self.daemon = daemon
        self.reserve = reserve
        self.onDrop = onDrop
    }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    func run() {
        var chunk = [UInt8](repeating: 0, count: Self.readChunkBytes)
        var descriptors: [pollfd] = []
        while true {
            let now = Self.now
            let accepting = now >= acceptPausedUntil
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: accepting ? listener : -1, events: Int16(POLLIN), revents: 0))
            descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
            for connection in connections {
                var events: Int32 = connection.readClosed ? 0 : Int32(POLLIN)
                if !connection.output.isEmpty { events |= Int32(POLLOUT) }
                descriptors.append(pollfd(fd: connection.descriptor, events: Int16(events), revents: 0))
            }
            if Syscalls.poll(&descriptors, milliseconds: pollTimeout(now: now, accepting: accepting), at: place) < 0 {
                if Syscalls.errno != EINTR { pauseAfterFailure() }
                continue
            }
            if descriptors[1].revents != 0 { drainWake() }
            let (events, stopping) = shared.lock.withLock {
                defer { shared.pending.removeAll(keepingCapacity: true) }
                return (shared.pending, shared.stopping)
            }
            if stopping { break }

            for index in connections.indices {
                let revents = Int32(descriptors[index + 2].revents)
                if revents & Int32(POLLIN) != 0 {
                    readRequests(&connections[index], chunk: &chunk)
                } else if revents & Int32(POLLERR | POLLHUP | POLLNVAL) != 0 {
                    connections[index].closed = true
                }
            }
            deliver(events)
            if accepting && descriptors[0].revents != 0 { acceptConnections() }
            expireIdle(now: Self.now)
            for index in connections.indices where !connections[index].closed { flush(&connections[index]) }
            closeFinished()
        }
        for connection in connections { Syscalls.close(connection.descriptor) }
        connections.removeAll()
        if reserve >= 0 { Syscalls.close(reserve) }
    }

    /// Until the nearest request deadline or the end of an accept pause; -1 when none.
    private func pollTimeout(now: UInt64, accepting: Bool) -> Int32 {
        var nearest = connections.compactMap(\.deadline).min()
        if !accepting { nearest = min(nearest ?? acceptPausedUntil, acceptPausedUntil) }
        guard let nearest else { return -1 }
        let milliseconds = nearest > now ? (nearest - now + 999_999) / 1_000_000 : 0
        return Int32(clamping: milliseconds)
    }

    private func pauseAfterFailure() {
        acceptPausedUntil = Self.now + Self.failurePauseNanoseconds
        shared.lock.withLock { shared.statistics.systemCallFailures += 1 }
    }

    private func drainWake() {
        Syscalls.drainWake(wake)
    }

    // MARK: Requests

    private func readRequests(_ connection: inout Connection, chunk: inout [UInt8]) {
        let count = chunk.withUnsafeMutableBytes { Syscalls.read(connection.descriptor, into: $0, at: place) }
        if connection.dropping && count > 0 { return }
        if count == 0 {
            connection.readClosed = true
            return
        }
        if count < 0 {
            let code = Syscalls.errno
            if code != EAGAIN && code != EWOULDBLOCK && code != EINTR { connection.closed = true }
            return
        }
        var start = 0
        while start < count {
            let end = chunk[start..<count].firstIndex(of: UInt8(ascii: "\n"))
            let piece = chunk[start..<(end ?? count)]
            if !connection.skipping {
                if connection.input.count + piece.count > ControlProtocol.maxRequestBytes {
                    // Answered now, before its newline comes (if ever); the rest is discarded
                    // as it arrives, so the line costs no more than the limit.
                    connection.input.removeAll(keepingCapacity: true)
                    connection.skipping = true
                    answer(&connection, id: nil, .failure(ControlFailure(.requestTooLong(limit: ControlProtocol.maxRequestBytes))), malformed: true)
                } else {
                    connection.input.append(contentsOf: piece)
                }
            }
            guard let end else { break }
            if connection.skipping {
                connection.skipping = false
            } else {
                handle(&connection)
            }
            connection.input.removeAll(keepingCapacity: true)
            start = end + 1
            if connection.closed { return }
        }
    }

    private func handle(_ connection: inout Connection) {
        let answered = answer(connection.input, connection.peer)
        answer(&connection, id: answered.id, answered.reply, malformed: answered.malformed)
        if answered.follows { connection.following = true }
        if !connection.following {
            connection.deadline = Self.now + UInt64(limits.readTimeoutSeconds * 1e9)
        } else {
            connection.deadline = nil
        }
    }

    private func answer(_ connection: inout Connection, id: Int?, _ reply: ControlReply, malformed: Bool) {
        shared.lock.withLock {
            shared.statistics.requests += 1
            if malformed { shared.statistics.malformedRequests += 1 }
        }
        enqueue(ControlReplyLine(id: id, reply: reply).encoded(daemon: daemon), on: &connection)
    }

    /// Queues `bytes`, or drops a connection that has let ``ControlServerLimits/maxBacklogBytes``
    /// pile up unread (one reply into an empty queue always fits). Before judging, what waits is
    /// handed to the kernel: a burst larger than the backlog is no fault of a client that reads.
    private func enqueue(_ bytes: [UInt8], on connection: inout Connection) {
        // Its last line is queued already.
        guard !connection.dropping else { return }
        if !connection.output.isEmpty && connection.output.count + bytes.count > limits.maxBacklogBytes {
            flush(&connection)
            if connection.closed { return }
        }
        guard connection.output.isEmpty || connection.output.count + bytes.count <= limits.maxBacklogBytes else {
            drop(&connection)
            return
        }
        connection.output.append(contentsOf: bytes)
    }

    /// A client that let ``ControlServerLimits/maxBacklogBytes`` pile up is told why before it
    /// is closed: what waits is cut after the line already going out (so it ends whole), the
    /// reason follows, and the connection closes once that is sent or the read timeout passes.
    private func drop(_ connection: inout Connection) {
        let backlog = connection.output.count
        if let end = connection.output.firstIndex(of: UInt8(ascii: "\n")) {
            connection.output.removeSubrange((end + 1)...)
        }
        let failure = ControlFailure(
            code: "too_slow",
            message: "dropped: \(backlog) bytes of replies were waiting unread (the limit is \(limits.maxBacklogBytes)); read as fast as transitions come, or reconnect")
        connection.output.append(contentsOf: ControlReplyLine(reply: .failure(failure)).encoded(daemon: daemon))
        connection.following = false
        connection.dropping = true
        connection.deadline = Self.now + UInt64(limits.readTimeoutSeconds * 1e9)
        shared.lock.withLock { shared.statistics.droppedSlowClients += 1 }
        onDrop("control client (uid \(connection.peer.uid)) dropped: \(backlog) bytes of replies unread, over the limit of \(limits.maxBacklogBytes)")
    }

    // MARK: Followers

    private func deliver(_ events: [TransitionSummary]) {
        guard !events.isEmpty, connections.contains(where: { $0.following && !$0.closed }) else { return }
        let lines = events.map { ControlReplyLine(reply: .event($0)).encoded(daemon: daemon) }
        for index in connections.indices where connections[index].following && !connections[index].closed {
            for line in lines where !connections[index].closed {
                enqueue(line, on: &connections[index])
            }
        }
    }

    // MARK: Connections

    private func acceptConnections() {
        for _ in 0..<Self.maxAcceptsPerWake {
            var descriptor = Syscalls.accept(listener, at: place)
            if descriptor < 0 {
                switch Syscalls.errno {
                case EAGAIN, EWOULDBLOCK: return
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE:
                    descriptor = acceptWithReserve(Syscalls.errno)
                    if descriptor < 0 { return }
                default:
                    pauseAfterFailure()
                    return
                }
            }
            guard let peer = Syscalls.peerCredentials(descriptor, at: place) else {
                refuse(descriptor, ControlFailure(code: "internal", message: "\(daemon) could not read the connection's credentials (SO_PEERCRED); try again"))
                continue
            }
            guard authorize(peer) else {
                shared.lock.withLock { shared.statistics.refusedPeers += 1 }
                let fix = group.map { "add the user to group \($0): sudo usermod -aG \($0) $USER, then log in again" }
                    ?? "run it as root or as \(daemon)'s own user"
                refuse(descriptor, ControlFailure(code: "permission_denied", message: "permission denied: user \(peer.uid) may not control \(daemon); \(fix)"))
                continue
            }
            if connections.count >= limits.maxConnections { evictIdlest() }
            guard connections.count < limits.maxConnections else {
                shared.lock.withLock { shared.statistics.refusedBusy += 1 }
                refuse(descriptor, ControlFailure(
                    code: "too_many_connections",
                    message: "\(daemon) already serves \(limits.maxConnections) control connections; close one (an `events --follow`?) and try again"))
                continue
            }
            shared.lock.withLock { shared.statistics.connections += 1 }
            connections.append(Connection(descriptor: descriptor, peer: peer, deadline: Self.now + UInt64(limits.readTimeoutSeconds * 1e9)))
        }
    }

    /// Out of descriptors: the reserve is given up to accept the waiting client. If the
    /// reserve can be had again at once the shortage has passed and the client is served;
    /// otherwise it is told why and closed, and the reserve taken back. -1 when nobody waited.
    private func acceptWithReserve(_ code: Int32) -> Int32 {
        pauseAfterFailure()
        if reserve >= 0 {
            Syscalls.close(reserve)
            reserve = -1
        }
        let descriptor = Syscalls.accept(listener, at: place)
        reserve = Syscalls.openReserve(at: place)
        guard descriptor >= 0 else { return -1 }
        if reserve >= 0 { return descriptor }
        refuse(descriptor, ControlFailure(
            code: "out_of_descriptors",
            message: "\(daemon) has no file descriptor left (\(Syscalls.describe(code))); nothing was done. See its log, and raise LimitNOFILE if it is reached in normal use"))
        reserve = Syscalls.openReserve(at: place)
        return -1
    }

    /// At the cap, the connection that has waited longest without a request (never a follower,
    /// never one with a reply still going out) makes room for the new one: idle clients cannot
    /// keep `ctl` out for their whole read timeout.
    private func evictIdlest() {
        let idle = connections.indices.filter {
            let connection = connections[$0]
            return !connection.following && !connection.dropping && !connection.closed && connection.output.isEmpty && connection.deadline != nil
        }
        guard let index = idle.min(by: { connections[$0].deadline! < connections[$1].deadline! }) else { return }
        shared.lock.withLock { shared.statistics.evictedIdle += 1 }
        let failure = ControlFailure(code: "timeout", message: "closed to make room: no complete request line came, and \(limits.maxConnections) control connections were open")
        connections[index].output.append(contentsOf: ControlReplyLine(reply: .failure(failure)).encoded(daemon: daemon))
        flush(&connections[index])
        Syscalls.close(connections[index].descriptor)
        connections.remove(at: index)
    }

    /// One error reply, written once (a fresh connection's socket buffer takes it whole), then closed.
    private func refuse(_ descriptor: Int32, _ failure: ControlFailure) {
        let bytes = ControlReplyLine(reply: .failure(failure)).encoded(daemon: daemon)
        _ = bytes.withUnsafeBytes { Syscalls.write(descriptor, $0, at: place) }
        Syscalls.close(descriptor)
    }

    private func expireIdle(now: UInt64) {
        for index in connections.indices {
            guard let deadline = connections[index].deadline, deadline <= now, !connections[index].closed else { continue }
            if connections[index].dropping {
                connections[index].closed = true
                continue
            }
            // A client that sent its request and hung up its writing side is done, not late.
            if connections[index].readClosed { continue }
            shared.lock.withLock { shared.statistics.timedOut += 1 }
            let seconds = limits.readTimeoutSeconds
            let failure = ControlFailure(code: "timeout", message: "no complete request line within \(seconds) s; send one JSON object per line, ending with a newline")
            connections[index].output.append(contentsOf: ControlReplyLine(reply: .failure(failure)).encoded(daemon: daemon))
            flush(&connections[index])
            connections[index].closed = true
        }
    }

    private func flush(_ connection: inout Connection) {
        while !connection.output.isEmpty {
            let written = connection.output.withUnsafeBytes { Syscalls.write(connection.descriptor, $0, at: place) }
            if written > 0 {
                connection.output.removeFirst(written)
            } else {
                let code = Syscalls.errno
                if written < 0 && code == EINTR { continue }
                if written < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return }
                connection.closed = true
                return
            }
        }
    }

    private func closeFinished() {
        connections.removeAll { connection in
            let done = connection.closed || (connection.output.isEmpty && (connection.dropping || (connection.readClosed && !connection.following)))
            if done { Syscalls.close(connection.descriptor) }
            return done
        }
    }
}

extension ControlReply {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
