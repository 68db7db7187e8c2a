/// Every controller on a site's broker at one moment, as its retained messages say: what
/// `fleet --json` prints and the site page's `/site.json` serves (one encoding for both). It
/// names no application's words: states, counters and gauges are each node's, by name.
public struct SiteOverview: Codable, Sendable, Equatable {
    /// One controller (node) on the broker.
    public struct Controller: Codable, Sendable, Equatable {
        /// Its node id, the topic level it publishes under.
        public var node: String
        /// The application it runs (`turnstile`), when a message said.
        public var app: String?
        /// `online` or `offline` (its last will), when it said.
        public var availability: String?
        /// Since when it has been so (ISO 8601), when known: an online node's start, or the
        /// moment the watcher saw it go offline.
        public var availabilitySince: String?
        /// The daemon's phase (`running`, `degraded`, …) in its last health message.
        public var phase: String?
        /// Its state after its last committed step.
        public var state: String?
        public var gauges: [String: Int]
        public var totals: [String: Int]
        /// Counted events its broker has not acknowledged yet (its outbox's backlog).
        public var outbox: Int?
        /// What an operator should look at, in words; empty when all is well.
        public var problems: [String]
        /// Its last counted event (ISO 8601) and how long ago that was.
        public var lastEvent: String?
        public var lastEventAgeSeconds: Double?
        /// What the watcher says of the node's messages, in words, when there is anything: a
        /// level that is no node id, a value cut to the watcher's bound, a message too long to
        /// be read. Nil when nothing is said.
        public var notes: [String]?

        public init(
            node: String, app: String? = nil, availability: String? = nil, availabilitySince: String? = nil, phase: String? = nil,
            state: String? = nil, gauges: [String: Int] = [:], totals: [String: Int] = [:], outbox: Int? = nil, problems: [String] = [],
            lastEvent: String? = nil, lastEventAgeSeconds: Double? = nil, notes: [String]? = nil
        ) {
            self.node = node
            self.app = app
            self.availability = availability
            self.availabilitySince = availabilitySince
            self.phase = phase
            self.state = state
            self.gauges = gauges
            self.totals = totals
            self.outbox = outbox
            self.problems = problems
            self.lastEvent = lastEvent
            self.lastEventAgeSeconds = lastEventAgeSeconds
            self.notes = notes
        }
    }

    /// Every node, by node id.
    public var controllers: [Controller]
    /// How many say `online`.
    public var online: Int
    /// Each application's totals summed over its nodes.
    public var sums: [String: [String: Int]]
    /// Where the nodes publish (`controllerfsm`), for the page's heading.
    public var prefix: String?
    /// Whether the watcher is subscribed on the broker now, and why not when it is not.
    public var connected: Bool?
    public var brokerProblem: String?
    /// Messages of nodes past the watcher's bound, not shown.
    public var notShown: Int?
    /// Messages under topic levels too long for any node's topics, not shown.
    public var notListed: Int?

    public init(
        controllers: [Controller], online: Int, sums: [String: [String: Int]], prefix: String? = nil, connected: Bool? = nil,
        brokerProblem: String? = nil, notShown: Int? = nil, notListed: Int? = nil
    ) {
        self.controllers = controllers
        self.online = online
        self.sums = sums
        self.prefix = prefix
        self.connected = connected
        self.brokerProblem = brokerProblem
        self.notShown = notShown
        self.notListed = notListed
    }
}
