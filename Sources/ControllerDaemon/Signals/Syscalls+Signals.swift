import CLinux

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Syscalls {
    /// Takes `trapped` through a process-wide handler that writes each one's number to a pipe,
    /// and ignores `ignored`; the pipe's read end, or -1 with `errno` set.
    static func trapSignals(_ trapped: [Int32], ignoring ignored: [Int32]) -> Int32 {
        trapped.withUnsafeBufferPointer { trapped in
            ignored.withUnsafeBufferPointer { ignored in
                clinux_signal_trap_install(trapped.baseAddress, Int32(trapped.count), ignored.baseAddress, Int32(ignored.count))
            }
        }
    }

    /// Reads the signal pipe into `buffer`, waiting for the first byte; the count (0 at the
    /// end), or -1 with `errno` set. Takes no armed fault (the server's `read` is for its
    /// connections).
    static func readSignals(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        Glibc.read(descriptor, buffer.baseAddress, buffer.count)
    }

    /// The realtime signals this C library leaves to programs.
    static var realtimeSignals: ClosedRange<Int32> { clinux_signal_realtime_min()...clinux_signal_realtime_max() }
}
