#if canImport(Glibc)
import Glibc
#endif

/// The files the daemon reads and writes (`--board`, `--record`, `--database`,
/// `--control-socket`): no two may be one file, or one would destroy the other (a recording
/// truncating the database, a database opened over the board file).
public enum DaemonPaths {
    /// The first two options that name one file (the same file by device and inode when both
    /// exist, by their resolved paths otherwise), as a message; nil when all differ.
    public static func clash(among paths: [(option: String, path: String)]) -> String? {
        for (index, first) in paths.enumerated() {
            for second in paths[(index + 1)...] where same(first.path, second.path) {
                return "\(first.option) and \(second.option) name the same file (\(second.path)); each needs a file of its own"
            }
        }
        return nil
    }

    static func same(_ a: String, _ b: String) -> Bool {
        if let first = Syscalls.followedStatus(a), let second = Syscalls.followedStatus(b) {
            return first.st_dev == second.st_dev && first.st_ino == second.st_ino
        }
        return resolved(a) == resolved(b)
    }

    /// The path through its directory's real path: `./x`, `dir/../x` and a link to the
    /// directory all name one file that may not exist yet.
    static func resolved(_ path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let real = Syscalls.realPath(directory) else { return path }
        return (real == "/" ? "" : real) + "/" + name
    }
}
