/// The bounds that keep one control client from costing the daemon more than a little memory,
/// a descriptor and a slot; tests shorten them.
public struct ControlServerLimits: Sendable, Equatable {
    /// How long a connection may take to send a complete request line (from connecting, or from
    /// its previous request) before it is told so and closed; a follower is exempt. Ten seconds
    /// is ages for a program and enough for someone typing into `socat` by hand.
    public var readTimeoutSeconds: Double
    /// Connections served at once; one more is told so and closed. `ctl` uses one for a moment,
    /// a few operators following events use one each: 16 is plenty, and bounds descriptors and
    /// buffers a local process could make the daemon hold.
    public var maxConnections: Int
    /// Reply bytes a connection may have waiting because it does not read them. A follower over
    /// it is dropped, so a stalled client never makes the publisher wait or the daemon grow.
    /// 64 KiB is hundreds of transitions beyond what the kernel's socket buffer already holds.
    public var maxBacklogBytes: Int
    /// Published transitions waiting for the server thread. Beyond it, new ones are counted as
    /// lost instead of queued: publishing must never wait, and the thread only falls this far
    /// behind if it is starved.
    public var maxPendingEvents: Int

    public init(readTimeoutSeconds: Double = 10, maxConnections: Int = 16, maxBacklogBytes: Int = 65_536, maxPendingEvents: Int = 1024) {
        self.readTimeoutSeconds = readTimeoutSeconds
        self.maxConnections = maxConnections
        self.maxBacklogBytes = maxBacklogBytes
        self.maxPendingEvents = maxPendingEvents
    }

    /// The daemon's limits.
    public static let standard = ControlServerLimits()
}

/// What the control server has done since it started, for logs and tests.
public struct ControlServerStatistics: Sendable, Equatable {
    /// Connections accepted and served.
    public var connections = 0
    /// Request lines answered (with a reply or an error reply).
    public var requests = 0
    /// Requests refused as malformed, unknown or oversized.
    public var malformedRequests = 0
    /// Connections refused because the peer is not root, the daemon's user or in its group.
    public var refusedPeers = 0
    /// Connections refused because `maxConnections` were already open.
    public var refusedBusy = 0
    /// Connections closed because no complete request came in time.
    public var timedOut = 0
    /// Idle connections closed at the cap to make room for a new one.
    public var evictedIdle = 0
    /// Followers (or clients not reading their replies) dropped for falling behind.
    public var droppedSlowClients = 0
    /// Published transitions lost because the server thread had `maxPendingEvents` waiting.
    public var lostEvents = 0
    /// Failed `accept` or `poll` calls (out of descriptors, memory); the server pauses and goes on.
    public var systemCallFailures = 0

    public init() {}
}
