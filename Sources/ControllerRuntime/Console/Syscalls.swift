import CLinux
import ControllerFSM

#if canImport(Glibc)
import Glibc
#endif

/// Every system call the executable makes itself, behind one thin layer (swift-system's
/// `Internals/Syscalls.swift` is the model): one place to read what turnstiled asks of the
/// kernel, and one place to fail a call from a test. Its commands share it (`run`'s event loop,
/// `ctl`, `simulate`, `soak`, the terminal output); `errno`, its text and sleeping are
/// ControllerFSM's (`SystemErrno`, `MonotonicClock.sleep`), which the libraries' layers share.
package enum Syscalls {
    /// The calls a test can make fail.
    package enum Call: Hashable, Sendable {
        /// The event loop's wait, by the first descriptor it waits on (its command inbox's): a
        /// test fails its own loop's wait while other loops in the process (the in-process
        /// daemons') run on.
        case wait(firstDescriptor: Int32)
    }

    /// The calls that fail, for a test: armed (`faults.arm(.wait(firstDescriptor: fd), errno:
    /// EBADF)`), as the event loop's thread runs no task a scope could reach.
    package static let faults = SyscallFaults<Call>()

    /// Waits for `descriptors` until `deadline` (on `CLOCK_MONOTONIC`), or without limit when it
    /// is `nil`; returns how many are ready (0 on timeout), or -1 with `errno` set.
    package static func wait(_ descriptors: UnsafeMutablePointer<pollfd>, count: Int, timeout nanoseconds: Int64?) -> Int32 {
        if faults.fails(.wait(firstDescriptor: descriptors[0].fd)) { return -1 }
        guard let nanoseconds else { return clinux_ppoll(descriptors, UInt(count), nil) }
        var timeout = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        return clinux_ppoll(descriptors, UInt(count), &timeout)
    }

    /// Makes writes to a closed pipe fail with `EPIPE` instead of killing the process.
    package static func ignoreBrokenPipes() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    package static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// Makes standard output line-buffered even into a pipe, so a supervisor sees each record
    /// as it happens.
    package static func lineBufferStandardOutput() {
        clinux_line_buffer_stdout()
    }

    /// A function the process may have been given by a preloaded library (e.g. the allocation
    /// counter the hardware-in-the-loop tests preload), or `nil`.
    package static func preloadedFunction(_ name: String) -> UnsafeMutableRawPointer? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
    }

    /// The size of a memory page, in bytes.
    package static var pageSize: Int { Int(sysconf(Int32(_SC_PAGESIZE))) }
}
