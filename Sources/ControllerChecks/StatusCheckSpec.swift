/// What a product's daemon shows on its status endpoints besides the runtime's own: its
/// package's `packaging/checks.json`, entry `"status"`. Pinning the states makes a daemon that
/// serves another's page fail.
public struct StatusCheckSpec: Decodable, Sendable, Equatable {
    /// Its own gauges' names without the daemon's prefix (`credit` for `turnstiled_credit`).
    public let gauges: [String]
    /// Event kinds its `NAME_events_total` must have.
    public let kinds: [String]
    /// Keys its `/status` has besides the runtime's.
    public let statusKeys: [String]
    /// Its machine's states, as `NAME_state` labels them.
    public let states: [String]

    public init(gauges: [String], kinds: [String], statusKeys: [String], states: [String]) {
        self.gauges = gauges
        self.kinds = kinds
        self.statusKeys = statusKeys
        self.states = states
    }
}
