#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `CLOCK_MONOTONIC`: the clock the kernel stamps GPIO edge events with by default, so edge
/// timestamps and timer deadlines share one timeline.
public final class MonotonicClock: MachineClock {
    public init() {}

    public func now() -> MachineInstant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MachineInstant(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }
}

extension MonotonicClock {
    /// Sleeps for `nanoseconds` (`nanosleep` measures on this clock), resuming after signals.
    /// `package`: the simulation's real-time pacing and the executable's threads share it, so
    /// neither calls libc for it; not part of the library's API.
    package static func sleep(nanoseconds: Int64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && SystemErrno.current == EINTR { request = remaining }
    }
}
