#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The wake-up pipe: the control server's thread, which sleeps in `poll`, is woken by a byte
/// written to its pipe.
extension Syscalls {
    /// A pipe whose ends are non-blocking and close-on-exec; nil with `errno` set.
    static func wakePipe(at place: Place) -> (read: Int32, write: Int32)? {
        if fails(.pipe, at: place) { return nil }
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        guard makeNonBlocking(ends[0]), makeNonBlocking(ends[1]) else {
            let code = errno
            _ = Glibc.close(ends[0])
            _ = Glibc.close(ends[1])
            errno = code
            return nil
        }
        return (ends[0], ends[1])
    }

    /// Writes one byte to the wake pipe. A failed write needs no retry: a full pipe (`EAGAIN`)
    /// already has a wake-up waiting, and whatever the byte announced is queued before it
    /// (its reader takes it at its next turn in any case).
    static func wake(_ writeEnd: Int32, at place: Place) {
        if fails(.wake, at: place) { return }
        var byte: UInt8 = 1
        _ = Glibc.write(writeEnd, &byte, 1)
    }

    /// Takes every byte waiting in the (non-blocking) wake pipe, into a buffer on the stack.
    /// Takes no armed fault (the server's `read` is for its connections).
    static func drainWake(_ readEnd: Int32) {
        var sink: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        while withUnsafeMutableBytes(of: &sink, { Glibc.read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
