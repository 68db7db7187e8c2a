import ControllerFSM

/// The `[barrier]` section of a board file.
public struct BarrierSettings: Hashable, Sendable {
    /// The arm must reach its end within this, or the barrier is at fault.
    public var motorTimeout: Duration = .seconds(6)
    /// How long the lane must stay clear after a vehicle before the arm comes down.
    public var closeDelay: Duration = .seconds(1)
    /// How long an opening waits for a vehicle.
    public var holdOpen: Duration = .seconds(20)
    /// How long a limit switch must keep its level, motors off, before the barrier believes it
    /// after driving the arm away from it (a request just after the arm started down): its
    /// report of the arm leaving comes a debounce period late.
    public var limitSettle: Duration = .milliseconds(250)

    public init() {}
}

/// What the barrier counts.
public struct BarrierCounters: Hashable, Sendable {
    public var requests = 0
    /// Requests in `fault` or `emergency`, which do not move the arm.
    public var refusedRequests = 0
    public var passages = 0
    /// Openings that ended without a vehicle.
    public var expiredOpenings = 0
    /// Closings turned back by a vehicle on the loop or a broken beam.
    public var reversals = 0
    public var faults = 0
    public var repairs = 0

    public init() {}
}

/// The barrier's data. The four levels are the inputs' own: the host writes each before its
/// edge's event, in every state, so the rows below only read them.
public struct BarrierContext: Sendable {
    /// A vehicle is over the induction loop.
    public var loop = false
    /// The safety beam is broken.
    public var photocell = false
    /// The arm is fully up.
    public var upLimit = false
    /// The arm is fully down.
    public var downLimit = false
    /// A vehicle has left the loop since the barrier opened: the closing is not an expiry.
    public var passed = false
    /// The emergency interrupted a fault: it needs a repair once the alarm ends.
    public var faultBeforeEmergency = false
    /// In `emergency`: `motor_up` is on, the arm has not reached its top yet.
    public var rising = false
    /// The arm was driven down since the up limit last changed: its active level may be stale
    /// (the switch's report of the arm leaving comes a debounce period after it left).
    public var upStale = false
    /// The arm was driven up since the down limit last changed: likewise.
    public var downStale = false
    /// In `opening`, `closing` or `emergency`: motors off, waiting `limit_settle` to see whether
    /// a possibly stale limit level holds (see ``upStale``).
    public var confirming = false
    public var counters = BarrierCounters()
    public private(set) var settings: BarrierSettings
    // In nanoseconds once, so the event path never divides a Duration.
    private(set) var motorTimeout: Int64 = 0
    private(set) var closeDelay: Int64 = 0
    private(set) var holdOpen: Int64 = 0
    private(set) var limitSettle: Int64 = 0

    public init(settings: BarrierSettings = BarrierSettings()) {
        self.settings = settings
        apply(settings)
    }

    /// Takes new settings (a reloaded board file); a running timer keeps its deadline.
    public mutating func apply(_ settings: BarrierSettings) {
        self.settings = settings
        motorTimeout = settings.motorTimeout.nanosecondCount
        closeDelay = settings.closeDelay.nanosecondCount
        holdOpen = settings.holdOpen.nanosecondCount
        limitSettle = settings.limitSettle.nanosecondCount
    }

    /// No vehicle on the loop and the beam whole: the arm may come down.
    public var isClear: Bool { !loop && !photocell }
}
