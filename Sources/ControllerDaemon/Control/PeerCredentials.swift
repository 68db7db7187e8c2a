/// Who is on the other end of a control connection, as the kernel recorded it at `connect`
/// (`SO_PEERCRED`): it cannot be forged by the client.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "pid \(pid), uid \(uid), gid \(gid)" }
}

/// Who may use the control socket: root, the daemon's own user, and the members of its group.
///
/// The socket's mode (0660, group-owned) already makes the kernel refuse everyone else; this is
/// the second lock, for a socket whose mode an administrator loosened or a directory that
/// exposes it.
public enum PeerAuthorization {
    /// Whether `peer` may send requests.
    /// - Parameters:
    ///   - peer: who is at the other end of the connection, as the kernel says (`SO_PEERCRED`).
    ///   - daemonUID: the daemon's effective user.
    ///   - group: the allowed group, or nil when only root and the daemon's user may.
    ///   - groupsOfUser: the groups a user belongs to by the system's databases; asked only when
    ///     the peer's own group is not `group`.
    public static func isAllowed(
        _ peer: PeerCredentials, daemonUID: UInt32, group: UInt32?, groupsOfUser: (UInt32) -> [UInt32]
    ) -> Bool {
        if peer.uid == 0 || peer.uid == daemonUID { return true }
        guard let group else { return false }
        return peer.gid == group || groupsOfUser(peer.uid).contains(group)
    }
}
