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

    static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
