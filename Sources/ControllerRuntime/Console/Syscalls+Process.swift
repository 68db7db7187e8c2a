import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// The process's ending, its environment and its standard streams: what every command's
/// output and exit go through.
extension Syscalls {
    /// Ends the process with `status` at once (no unwinding: `main` has nothing left to undo).
    package static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    /// Flushes standard output; 0, or the `errno` of the write that failed (a full disk, a
    /// closed pipe).
    package static func flushStandardOutput() -> Int32 {
        clinux_flush_stdout()
    }

    /// Flushes every C output stream (standard output, which a pipe buffers, above all).
    package static func flushAllStreams() {
        _ = fflush(nil)
    }

    /// Whether `descriptor` is a terminal.
    package static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) != 0
    }

    /// The environment variable `name`, or nil when it is not set.
    package static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// A plain `write(2)` to standard error; how many bytes were written, or -1 with `errno` set.
    package static func writeStandardError(_ bytes: UnsafeRawBufferPointer) -> Int {
        Glibc.write(STDERR_FILENO, bytes.baseAddress, bytes.count)
    }
}
