import Testing
@testable import ControllerDaemon
#if canImport(Glibc)
import Glibc
#endif

@Suite("Who may use the control socket")
struct PeerAuthorizationTests {
    private let daemon: UInt32 = 998
    private let group: UInt32 = 997

    private func allowed(uid: UInt32, gid: UInt32, group: UInt32?, memberships: [UInt32: [UInt32]] = [:]) -> Bool {
        PeerAuthorization.isAllowed(PeerCredentials(pid: 1, uid: uid, gid: gid), daemonUID: daemon, group: group) { memberships[$0] ?? [] }
    }

    @Test func rootAndTheDaemonsUserAlways() {
        #expect(allowed(uid: 0, gid: 0, group: group))
        #expect(allowed(uid: 0, gid: 0, group: nil))
        #expect(allowed(uid: daemon, gid: 12, group: nil))
    }

    @Test func theGroupByPrimaryGroupOrMembership() {
        #expect(allowed(uid: 1000, gid: group, group: group))
        #expect(allowed(uid: 1000, gid: 1000, group: group, memberships: [1000: [1000, 27, group]]))
    }

    @Test func everyoneElseIsRefused() {
        #expect(!allowed(uid: 1000, gid: 1000, group: group, memberships: [1000: [1000, 27]]))
        #expect(!allowed(uid: 65534, gid: 65534, group: group))
        // Without a group, membership of any group does not help.
        #expect(!allowed(uid: 1000, gid: group, group: nil, memberships: [1000: [group]]))
    }

    @Test func membershipIsAskedOnlyWhenNeeded() {
        var asked: [UInt32] = []
        _ = PeerAuthorization.isAllowed(PeerCredentials(pid: 1, uid: 1000, gid: group), daemonUID: daemon, group: group) { asked.append($0); return [] }
        _ = PeerAuthorization.isAllowed(PeerCredentials(pid: 1, uid: 1001, gid: 5), daemonUID: daemon, group: group) { asked.append($0); return [] }
        #expect(asked == [1001])
    }

    /// The user and group databases as the socket asks them, on this machine's own entries
    /// (root's, which every Linux has): a user's groups come from its name, which lives in
    /// the lookup's buffer, so a buffer that ended too early gives garbage or a trap here.
    @Test func theDatabasesAnswerForRoot() {
        #expect(Syscalls.groupID(named: "root") == 0)
        #expect(Syscalls.groupID(named: "no-such-group-\(getpid())") == nil)
        #expect(Syscalls.groups(ofUser: 0).contains(0), "\(Syscalls.groups(ofUser: 0))")
        #expect(Syscalls.groups(ofUser: 4_000_000_000).isEmpty, "a user with no entry has no groups")
    }
}
