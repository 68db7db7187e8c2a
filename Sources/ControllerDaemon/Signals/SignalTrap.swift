import ControllerFSM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#endif

/// Every signal whose default action would end a daemon, taken from the first line of its
/// `main` to the exit: a stop signal then always means the fail-mode drive and the drain, never
/// the kernel ending the process with the outputs wherever they were. The handler is process-wide (a
/// signal mask would only cover threads created after it, and the runtime has threads of its
/// own by then); it writes the signal's number to a pipe that a thread of the trap reads, and
/// the signals wait in `signals` until the daemon's signal service takes them: a SIGTERM or a
/// SIGHUP that comes before the services run is applied when they do, and one during the drain
/// is logged.
public final class SignalTrap: Sendable {
    /// What the daemon does with a signal.
    public enum Meaning: Equatable, Sendable {
        /// SIGTERM, SIGINT: the fail-mode drive and the drain.
        case stop
        /// SIGHUP: the board file read again.
        case reload
        /// Any other that would end the process: logged and otherwise ignored.
        case ignored
    }

    static let stopping: [Int32] = [SIGTERM, SIGINT]
    static let reloading: [Int32] = [SIGHUP]
    /// The rest of the signals whose default action ends the process and which only another
    /// process sends (the faults — SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS — are the
    /// runtime's, and SIGPROF its backtracer's).
    static var logged: [Int32] {
        [SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU] + Array(Syscalls.realtimeSignals)
    }
    /// Ignored without a word: a write past RLIMIT_FSIZE then fails with EFBIG, which the writer
    /// (the store, the recording) reports, instead of the process dumping core.
    static let ignored: [Int32] = [SIGXFSZ]
    /// Signals that arrived and were not yet taken; more of them are coalesced (as the kernel
    /// does while one is pending).
    static let backlog = 64

    public struct InstallError: Error, CustomStringConvertible {
        public var errno: Int32
        public var description: String { "cannot take the stop and reload signals: \(SystemErrno.describe(errno))" }
    }

    /// The process's one trap, installed the first time it is asked for.
    public static let daemon: Result<SignalTrap, InstallError> = {
        let descriptor = Syscalls.trapSignals(stopping + reloading + logged, ignoring: ignored)
        guard descriptor >= 0 else { return .failure(InstallError(errno: SystemErrno.current)) }
        return .success(SignalTrap(reading: descriptor))
    }()

    /// The signals in the order they came, for the one service that takes them.
    public let signals: AsyncStream<Int32>

    private init(reading descriptor: Int32) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingOldest(Self.backlog))
        signals = stream
        DetachedThread.start(name: "signals") {
            var bytes = [UInt8](repeating: 0, count: Self.backlog)
            while true {
                let count = bytes.withUnsafeMutableBytes { Syscalls.readSignals(descriptor, into: $0) }
                if count < 0 && SystemErrno.current == EINTR { continue }
                guard count > 0 else { return }
                for byte in bytes[..<count] { continuation.yield(Int32(byte)) }
            }
        }
    }

    public static func meaning(of signal: Int32) -> Meaning {
        if stopping.contains(signal) { return .stop }
        if reloading.contains(signal) { return .reload }
        return .ignored
    }

    /// The signal's name as `kill -l` gives it, with the SIG prefix.
    public static func name(of signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGTERM: "SIGTERM", SIGUSR1: "SIGUSR1",
            SIGUSR2: "SIGUSR2", SIGALRM: "SIGALRM", SIGVTALRM: "SIGVTALRM", SIGIO: "SIGIO", SIGPWR: "SIGPWR",
            SIGSTKFLT: "SIGSTKFLT", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
        ]
        if let name = names[signal] { return name }
        let realtime = Syscalls.realtimeSignals
        if realtime.contains(signal) { return "SIGRTMIN+\(signal - realtime.lowerBound)" }
        return "signal \(signal)"
    }
}
