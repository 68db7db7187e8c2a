import ControllerFSM

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls the board and scenario loaders make, behind one thin layer as the daemon's
/// and the GPIO backend's are: one place to read what they ask of the kernel, and one place
/// where a test makes a call fail (`faults`) to see the failure reported. `errno` and its
/// text are ControllerFSM's `SystemErrno`, which the other targets' layers share.
enum FileSyscalls {
    /// The calls a test can make fail.
    enum Call: Hashable, Sendable {
        case open, read
    }

    /// The calls that fail, for a test: `faults.failing([.read: EIO]) { ... }` fails them for
    /// the current task only (the daemon's, made on threads no task reaches, are armed at a
    /// place instead): the loaders' tests run in parallel in one process, and a failure for one
    /// must not be taken by another reading its own file.
    static let faults = SyscallFaults<Call>()

    /// True, with `errno` set, when a test made `call` fail.
    private static func fails(_ call: Call) -> Bool {
        faults.fails(call)
    }

    /// `path` opened for reading, close-on-exec; -1 with `errno` set. `nonBlocking`: a FIFO
    /// opens at once instead of waiting for a writer (a regular file's reads never block).
    static func openForReading(_ path: String, nonBlocking: Bool = false) -> Int32 {
        if fails(.open) { return -1 }
        return open(path, O_RDONLY | O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0))
    }

    /// Up to `buffer.count` bytes; 0 at the end, -1 with `errno` set.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if fails(.read) { return -1 }
        #if canImport(Glibc)
        return Glibc.read(descriptor, buffer.baseAddress, buffer.count)
        #elseif canImport(Musl)
        return Musl.read(descriptor, buffer.baseAddress, buffer.count)
        #else
        return Darwin.read(descriptor, buffer.baseAddress, buffer.count)
        #endif
    }

    /// Whether `descriptor` is a regular file; nil with `errno` set when `fstat` fails.
    static func isRegularFile(_ descriptor: Int32) -> Bool? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT == S_IFREG
    }

    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
