import Hummingbird

/// The bounds that keep clients of the status page from costing the daemon its descriptors:
/// every connection is a descriptor, and one that sends half a request and waits would otherwise
/// hold it for ever. Tests shorten them.
public struct StatusServerLimits: Sendable, Equatable {
    /// Connections served at once; more wait in the kernel's accept queue (which costs the
    /// daemon no descriptor) until one closes. A Prometheus scraper, a few browsers and a health
    /// check use one each: 32 is plenty, and with the control socket's 16 it leaves most of
    /// `LimitNOFILE` to the lines, the store and the journal.
    public var maxConnections: Int
    /// How long a connection may go without a complete request (from connecting, or since its
    /// last response) before it is closed: a half-sent request cannot hold its slot. Ten seconds
    /// is ages for a scraper on the same machine or network.
    public var idleTimeout: Duration
    /// Connections the kernel queues beyond `maxConnections`; one more is refused by the kernel.
    public var backlog: Int

    public init(maxConnections: Int = 32, idleTimeout: Duration = .seconds(10), backlog: Int = 64) {
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.backlog = backlog
    }

    /// The daemon's limits.
    public static let standard = StatusServerLimits()
}
