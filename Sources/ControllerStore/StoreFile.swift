import ControllerFSM

#if canImport(Glibc)
import Glibc
#endif

/// Checks on the database file and its directory made before SQLite sees them, so a missing
/// directory or a permission problem is named as such rather than as SQLite's "unable to open".
/// Every call goes through ``StoreSyscalls``.
enum StoreFile {
    /// What is at the database's path.
    enum Presence { case absent, empty, nonEmpty }

    /// For a writer: the directory exists and is writable (SQLite creates the write-ahead log and
    /// its index there), and the file, if there is one, is a regular file we can read and write.
    static func checkWritable(_ path: String, daemon: String) throws(StoreError) -> Presence {
        let directory = directoryOf(path)
        guard let info = StoreSyscalls.status(atPath: directory) else {
            let failure = SystemErrno.current
            // A directory this user may not reach (EACCES) exists: saying it does not would
            // send the operator to create it.
            if failure == ENOENT || failure == ENOTDIR { throw .directoryMissing(path: path, directory: directory, daemon: daemon) }
            throw .system(path: path, operation: "open", errno: failure)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .directoryMissing(path: path, directory: directory, daemon: daemon) }
        try checkWriteAccess(path: path, what: directory, mode: W_OK | X_OK, daemon: daemon)
        let presence = try checkReadable(path, mustExist: false, daemon: daemon)
        if presence != .absent { try checkWriteAccess(path: path, what: path, mode: W_OK, daemon: daemon) }
        return presence
    }

    /// `what` (the file or its directory) may be written: a refusal is the user's (EACCES), or
    /// the file system's (EROFS), whose fixes differ.
    private static func checkWriteAccess(path: String, what: String, mode: Int32, daemon: String) throws(StoreError) {
        guard !StoreSyscalls.mayAccess(what, mode) else { return }
        let failure = SystemErrno.current
        if failure == EACCES { throw .notWritable(path: path, what: what, daemon: daemon) }
        throw .system(path: path, operation: "write", errno: failure)
    }

    /// For a reader: the file exists (unless `mustExist` is false), is a regular file, and is
    /// readable.
    static func checkReadable(_ path: String, mustExist: Bool = true, daemon: String) throws(StoreError) -> Presence {
        guard let info = StoreSyscalls.status(atPath: path) else {
            let failure = SystemErrno.current
            if failure == ENOENT {
                if mustExist { throw .missing(path: path, daemon: daemon) }
                return .absent
            }
            if failure == EACCES { throw .notReadable(path: path) }
            throw .system(path: path, operation: "open", errno: failure)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notAFile(path: path) }
        guard StoreSyscalls.mayAccess(path, R_OK) else { throw .notReadable(path: path) }
        return info.st_size == 0 ? .empty : .nonEmpty
    }

    /// Which file a path or descriptor is: a database deleted or replaced under a running
    /// daemon has another identity (or none) at its path, while SQLite goes on writing to the
    /// old one, which nothing will ever read again.
    struct Identity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// The identity of the file at `path`, nil when there is none (deleted, or renamed away).
    /// - Throws: when the file cannot be looked at for another reason (an I/O error): that is
    ///   not a replaced file, and the operator must hear which it is.
    static func identity(of path: String) throws(StoreError) -> Identity? {
        guard let info = StoreSyscalls.status(atPath: path) else {
            let failure = SystemErrno.current
            if failure == ENOENT { return nil }
            throw .system(path: path, operation: "check", errno: failure)
        }
        return Identity(info)
    }

    /// Opens (creating it if need be) the database file and takes an exclusive `flock` on it for
    /// as long as the descriptor stays open (waiting up to `StoreLimits.writeLockWaitMilliseconds`
    /// for one that is held, since a forked child can hold a closed one for a moment): two daemons recording into one file would each book
    /// the other's standing gauges (the turnstile's credit) as voided. SQLite's own locks are `fcntl` locks, which Linux
    /// keeps apart from `flock`, so this one neither blocks nor is released by SQLite; readers
    /// (`stats`) do not take it.
    static func lockForWriting(_ path: String, daemon: String) throws(StoreError) -> (descriptor: Int32, identity: Identity) {
        // Group-readable so an operator in the daemon's group can run `stats`; SQLite gives its
        // log files the database's mode.
        let descriptor = StoreSyscalls.openOrCreate(path, mode: 0o640)
        guard descriptor >= 0 else {
            let failure = SystemErrno.current
            if failure == EACCES { throw .notWritable(path: path, what: path, daemon: daemon) }
            throw .system(path: path, operation: "open", errno: failure)
        }
        var waited = 0
        while !StoreSyscalls.lockExclusively(descriptor) {
            let failure = SystemErrno.current
            if failure == EWOULDBLOCK && waited < StoreLimits.writeLockWaitMilliseconds {
                MonotonicClock.sleep(nanoseconds: Int64(StoreLimits.writeLockRetryMilliseconds) * 1_000_000)
                waited += StoreLimits.writeLockRetryMilliseconds
                continue
            }
            StoreSyscalls.close(descriptor)
            if failure == EWOULDBLOCK { throw .inUse(path: path, daemon: daemon) }
            throw .system(path: path, operation: "lock", errno: failure)
        }
        guard let info = StoreSyscalls.status(of: descriptor) else {
            let failure = SystemErrno.current
            StoreSyscalls.close(descriptor)  // and with it the lock
            throw .system(path: path, operation: "check", errno: failure)
        }
        return (descriptor, Identity(info))
    }

    static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
