/// What a product's controllers do on the site test's broker (scripts/site-test.sh): its
/// package's `packaging/checks.json`, entry `"site"`. The site test runs every product that has
/// one, node by node in turn, each node with traffic of its own made from this.
public struct SiteCheckSpec: Decodable, Sendable {
    /// The application's name as status, `fleet` and the site page give it (`turnstile`).
    public let app: String
    /// The innermost state a controller shows after the site-wide `emergency on`.
    public let emergencyState: String
    /// One cycle of traffic: each step's scenario line, after a pause drawn from its range
    /// (seconds, from the step before; the first from the cycle's start).
    public let cycle: [SiteStep]
    /// The pause after a cycle's last step before the next cycle, drawn from `[min, max]`.
    public let pause: [Double]
    /// Quiet time a cycle needs after its last step to end where it began (a barrier's arm
    /// closing), within the traffic's seconds.
    public let settleSeconds: Double

    enum CodingKeys: String, CodingKey { case app, emergencyState, cycle, pause, settleSeconds }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        app = try container.decode(String.self, forKey: .app)
        emergencyState = try container.decode(String.self, forKey: .emergencyState)
        cycle = try container.decode([SiteStep].self, forKey: .cycle)
        pause = try container.decode([Double].self, forKey: .pause)
        settleSeconds = try container.decodeIfPresent(Double.self, forKey: .settleSeconds) ?? 0
        guard !cycle.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .cycle, in: container, debugDescription: "a cycle has at least one step")
        }
        guard pause.count == 2, pause[0] >= 0, pause[0] <= pause[1], pause[1] > 0 else {
            throw DecodingError.dataCorruptedError(forKey: .pause, in: container, debugDescription: "the pause is [min, max] seconds, 0 <= min <= max, max > 0")
        }
    }
}

/// A step of a site cycle: `{"after": [min, max], "line": "coin"}`.
public struct SiteStep: Decodable, Sendable {
    /// Seconds after the step before (the first: after the cycle's start), drawn from `[min, max]`.
    public let after: [Double]
    /// The scenario line without its time (`coin`, `set loop on`).
    public let line: String

    enum CodingKeys: String, CodingKey { case after, line }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        after = try container.decode([Double].self, forKey: .after)
        line = try container.decode(String.self, forKey: .line)
        guard after.count == 2, after[0] >= 0, after[0] <= after[1] else {
            throw DecodingError.dataCorruptedError(forKey: .after, in: container, debugDescription: "after is [min, max] seconds, 0 <= min <= max")
        }
    }
}
