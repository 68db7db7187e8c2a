#if canImport(Glibc)
import Glibc
#endif

/// Checks on the database file and its directory made before SQLite sees them, so a missing
/// directory or a permission problem is named as such rather than as SQLite's "unable to open".
enum StoreFile {
    /// What is at the database's path.
    enum Presence { case absent, empty, nonEmpty }

    /// For a writer: the directory exists and is writable (SQLite creates the write-ahead log and
    /// its index there), and the file, if there is one, is a regular file we can read and write.
    static func checkWritable(_ path: String) throws(StoreError) -> Presence {
        let directory = directoryOf(path)
        var info = stat()
        guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .directoryMissing(path: path, directory: directory)
        }
        guard access(directory, W_OK | X_OK) == 0 else { throw .notWritable(path: path, what: directory) }
        let presence = try checkReadable(path, mustExist: false)
        if presence != .absent, access(path, W_OK) != 0 { throw .notWritable(path: path, what: path) }
        return presence
    }

    /// For a reader: the file exists (unless `mustExist` is false), is a regular file, and is
    /// readable.
    static func checkReadable(_ path: String, mustExist: Bool = true) throws(StoreError) -> Presence {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT {
                if mustExist { throw .missing(path: path) }
                return .absent
            }
            if errno == EACCES { throw .notReadable(path: path) }
            throw .sqlite(path: path, operation: "open", code: -1, message: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notAFile(path: path) }
        guard access(path, R_OK) == 0 else { throw .notReadable(path: path) }
        return info.st_size == 0 ? .empty : .nonEmpty
    }

    /// Which file a path or descriptor is: a database deleted or replaced under a running
    /// daemon has another identity (or none) at its path, while SQLite goes on writing to the
    /// old one, which nothing will ever read again.
    struct Identity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    static func identity(of path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Opens (creating it if need be) the database file and takes an exclusive `flock` on it for
    /// as long as the descriptor stays open: two daemons recording into one file would each book
    /// the other's standing credit as voided. SQLite's own locks are `fcntl` locks, which Linux
    /// keeps apart from `flock`, so this one neither blocks nor is released by SQLite; readers
    /// (`stats`) do not take it.
    static func lockForWriting(_ path: String) throws(StoreError) -> (descriptor: Int32, identity: Identity) {
        // Group-readable so an operator in the daemon's group can run `stats`; SQLite gives its
        // log files the database's mode.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            if errno == EACCES || errno == EROFS { throw .notWritable(path: path, what: path) }
            throw .sqlite(path: path, operation: "open", code: -1, message: String(cString: strerror(errno)))
        }
        var info = stat()
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, fstat(descriptor, &info) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { throw .inUse(path: path) }
            throw .sqlite(path: path, operation: "lock", code: -1, message: String(cString: strerror(failure)))
        }
        return (descriptor, Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
    }

    static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
