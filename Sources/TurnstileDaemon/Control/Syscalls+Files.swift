#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Plain files and standard error: the flight recorder's file and the log handler's lines.
extension Syscalls {
    /// `path` created or truncated, open for writing, close-on-exec; -1 with `errno` set.
    static func createForWriting(_ path: String, mode: mode_t) -> Int32 {
        if fails(.open) { return -1 }
        return Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    }

    /// A plain `write(2)`; how many bytes were written, or -1 with `errno` set. `fault`: the
    /// armed failure it takes (the log handler passes its own).
    static func writeFile(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, fault: Call = .fileWrite) -> Int {
        if fails(fault) { return -1 }
        return Glibc.write(descriptor, bytes.baseAddress, bytes.count)
    }

    /// Makes what was written to `descriptor` durable; -1 with `errno` set.
    static func fsync(_ descriptor: Int32) -> Int32 {
        if fails(.fsync) { return -1 }
        return Glibc.fsync(descriptor)
    }
}
