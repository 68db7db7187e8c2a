#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The user and group databases, for the control socket's peer check.
extension Syscalls {
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
        var buffer = [CChar](repeating: 0, count: lookupBufferBytes)
        // The entry's strings (`pw_name`) live in `buffer`: every use of them stays inside the
        // closure that keeps it alive. An `&buffer` argument lends the storage for the call
        // alone, and an optimized build may free the array right after its last use.
        return buffer.withUnsafeMutableBufferPointer { storage -> [UInt32] in
            var user = passwd()
            var found: UnsafeMutablePointer<passwd>?
            guard let base = storage.baseAddress, getpwuid_r(uid, &user, base, storage.count, &found) == 0, found != nil, let name = user.pw_name else { return [] }
            var count: Int32 = Int32(maxGroupsPerUser)
            var groups = [gid_t](repeating: 0, count: maxGroupsPerUser)
            guard getgrouplist(name, user.pw_gid, &groups, &count) >= 0 else { return [user.pw_gid] }
            return Array(groups.prefix(Int(count)))
        }
    }

    /// Room for one passwd or group entry's strings: glibc's own sysconf suggestion is 1 KiB;
    /// 16 KiB fits groups with many members.
    private static let lookupBufferBytes = 16_384
    /// Linux's NGROUPS_MAX is 65536, but a user in more than 1024 groups is not one to expect;
    /// getgrouplist reports -1 and the check falls back to the primary group.
    private static let maxGroupsPerUser = 1024
}
