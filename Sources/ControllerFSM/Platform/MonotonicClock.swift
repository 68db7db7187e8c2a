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
