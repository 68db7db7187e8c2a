import ControllerFSM

#if canImport(Glibc)
import Glibc
#endif

/// Every system call the count store makes itself (SQLite makes the rest), behind one thin layer
/// as the daemon's and the loaders' are: one place to read what the store asks of the kernel,
/// and one place where a test makes a call fail (`faults`) to see the error the store then
/// reports. It holds money counts: an error that names the wrong cause sends the operator the
/// wrong way.
enum StoreSyscalls {
    /// The calls a test can make fail.
    enum Call: Hashable, Sendable {
        /// `stat` of a path: the database's directory, the file, and the file's identity before
        /// each write.
        case stat
        case access, open, flock, fstat
        /// Any step of `replaceDurably` (open, write, fsync, rename): the unwritten-counts file.
        case write
    }

    /// The calls that fail, for a test: `faults.failing([.stat: EIO]) { ... }` fails them for
    /// the current task only, as the loaders' tests do: `CountStore.open` and `openForReading`
    /// make these calls on their caller's task, and the store's tests run in parallel in one
    /// process. (The recorder's thread, which checks the file's identity before each write, runs
    /// no task and sees none.)
    static let faults = SyscallFaults<Call>()

    /// True, with `errno` set, when a test made `call` fail.
    private static func fails(_ call: Call) -> Bool {
        faults.fails(call)
    }

    /// What `stat` says of `path` (following links), or nil with `errno` set.
    static func status(atPath path: String) -> stat? {
        if fails(.stat) { return nil }
        var info = stat()
        return stat(path, &info) == 0 ? info : nil
    }

    /// What `fstat` says of an open file, or nil with `errno` set.
    static func status(of descriptor: Int32) -> stat? {
        if fails(.fstat) { return nil }
        var info = stat()
        return Glibc.fstat(descriptor, &info) == 0 ? info : nil
    }

    /// Whether this user may use `path` as `mode` asks (`W_OK`, `R_OK`, `X_OK`); false with
    /// `errno` set when not.
    static func mayAccess(_ path: String, _ mode: Int32) -> Bool {
        if fails(.access) { return false }
        return Glibc.access(path, mode) == 0
    }

    /// `path` opened for reading and writing, created with `mode` if it does not exist,
    /// close-on-exec; -1 with `errno` set.
    static func openOrCreate(_ path: String, mode: mode_t) -> Int32 {
        if fails(.open) { return -1 }
        return Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode)
    }

    /// Takes an exclusive `flock` on `descriptor` without waiting; false with `errno` set
    /// (`EWOULDBLOCK` when another open file holds it).
    static func lockExclusively(_ descriptor: Int32) -> Bool {
        if fails(.flock) { return false }
        return flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    /// Writes `bytes` to `path` so that a crash leaves the old file or the new one, never a part:
    /// into `path.tmp`, synced, renamed over `path`, and the directory synced. False with
    /// `errno` set.
    static func replaceDurably(_ path: String, with bytes: [UInt8], directory: String) -> Bool {
        if fails(.write) { return false }
        let temporary = path + ".tmp"
        let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { return false }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if result < 0 && SystemErrno.current == EINTR { continue }
            guard result > 0 else { return failed(closing: descriptor, removing: temporary) }
            written += result
        }
        guard fsync(descriptor) == 0 else { return failed(closing: descriptor, removing: temporary) }
        _ = Glibc.close(descriptor)
        guard rename(temporary, path) == 0 else { return failed(closing: -1, removing: temporary) }
        let directoryDescriptor = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)
            _ = Glibc.close(directoryDescriptor)
        }
        return true
    }

    private static func failed(closing descriptor: Int32, removing path: String) -> Bool {
        let code = SystemErrno.current
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        _ = unlink(path)
        SystemErrno.current = code
        return false
    }

    /// Removes `path`; false with `errno` set (ENOENT when there was nothing).
    static func remove(_ path: String) -> Bool {
        unlink(path) == 0
    }

    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }
}
