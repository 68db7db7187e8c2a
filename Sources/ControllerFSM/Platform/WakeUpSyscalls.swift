import CLinux

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The eventfd calls `WakeUpDescriptor` makes: its only system calls, in one thin layer, with
/// the failures a test injects (as the futex's layer and the daemon's `Syscalls` do).
enum WakeUpSyscalls {
    /// The calls a test can make fail: `make()` (out of descriptors), on the test's task; and
    /// `ring(_:)` of one descriptor, which then writes nothing, on whichever thread posts.
    enum Call: Hashable, Sendable {
        case make
        case ring(descriptor: Int32)
    }

    /// Failures tests make (`failing` for `make`; `arm` for a descriptor's `ring`, so only the
    /// test's own inbox is failed, whatever else in the process rings its own).
    static let faults = SyscallFaults<Call>()

    /// A new non-blocking, close-on-exec eventfd at 0, or -1 with `errno` set.
    static func make() -> Int32 {
        if faults.fails(.make) { return -1 }
        return clinux_eventfd()
    }

    /// Adds 1 to the count, making the descriptor readable. A failed write needs no retry: the
    /// only one the kernel makes (`EAGAIN`) is a count at its maximum, readable already.
    static func ring(_ descriptor: Int32) {
        if faults.take(.ring(descriptor: descriptor)) != nil { return }
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Sets the count back to 0 (one read takes all of it). Into a value on the stack: a loop
    /// clears its wake-ups every turn and must not allocate.
    static func clear(_ descriptor: Int32) {
        var count: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &count) { read(descriptor, $0.baseAddress, $0.count) }
    }

    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Musl.close(descriptor)
        #endif
    }
}
