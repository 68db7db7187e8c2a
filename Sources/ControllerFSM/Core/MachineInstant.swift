/// A point in time, in nanoseconds on a monotonic timeline whose origin the clock chooses.
///
/// Arithmetic saturates at the ends of the 64-bit range (about ±292 years) instead of
/// wrapping: a deadline past the end of time is "never", not a moment in the past.
///
/// The core keeps time as a plain 64-bit count so that timer bookkeeping on the dispatch path is
/// one integer comparison; `Duration` (128-bit) is used only at the API edge.
public struct MachineInstant: Comparable, Hashable, Sendable {
    public var nanoseconds: Int64

    @inlinable
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = MachineInstant(nanoseconds: 0)

    @inlinable
    public static func < (lhs: MachineInstant, rhs: MachineInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    @inlinable
    public static func + (instant: MachineInstant, duration: Duration) -> MachineInstant {
        MachineInstant(nanoseconds: saturatingSum(instant.nanoseconds, duration.nanosecondCount))
    }

    @inlinable
    public static func - (instant: MachineInstant, duration: Duration) -> MachineInstant {
        MachineInstant(nanoseconds: saturatingDifference(instant.nanoseconds, duration.nanosecondCount))
    }

    /// The time from `earlier` to `self`.
    @inlinable
    public func duration(since earlier: MachineInstant) -> Duration {
        .nanoseconds(Self.saturatingDifference(nanoseconds, earlier.nanoseconds))
    }

    /// `a + b` in nanoseconds, held at `Int64.max` / `Int64.min` instead of wrapping.
    @inlinable
    public static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b < 0 ? .min : .max) : sum
    }

    /// `a - b` in nanoseconds, held at `Int64.max` / `Int64.min` instead of wrapping.
    @inlinable
    public static func saturatingDifference(_ a: Int64, _ b: Int64) -> Int64 {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (b < 0 ? .max : .min) : difference
    }

    /// Seconds since the clock's origin, for display and JSON.
    public var seconds: Double { Double(nanoseconds) / 1e9 }
}

extension Duration {
    /// The duration as whole nanoseconds, saturating at `Int64`'s range (about 292 years).
    @inlinable
    public var nanosecondCount: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        return MachineInstant.saturatingSum(scaled, attoseconds / 1_000_000_000)
    }
}

/// Where the time comes from. A monotonic clock in production, a manual one in tests and the
/// simulator, so that five simulated seconds take microseconds.
public protocol MachineClock: AnyObject, Sendable {
    func now() -> MachineInstant
}
