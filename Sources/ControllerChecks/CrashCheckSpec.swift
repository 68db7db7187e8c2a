/// What the crash check drives a product with and holds it to: its package's
/// `packaging/checks.json`, entry `"crash"`.
public struct CrashCheckSpec: Decodable, Sendable {
    /// The `ctl` words of one random input (`["pulse", "coin"]`); a word listed twice comes
    /// twice as often.
    public let inputs: [[String]]
    /// Counters that must not be 0 at the end: the inputs reached the daemon.
    public let counted: [String]
    /// The counters the last line prints, each `[counter, label]`.
    public let summary: [[String]]
    /// Changes to the product's `boards/sim.toml` for this check (see ``BoardEdits``).
    public let boardEdits: [String: String]
    /// The product's balances over a standing gauge (the turnstile's money: coins = passages +
    /// … + the credit standing), checked on every report, before a kill and after it.
    public let balances: [StandingBalance]

    enum CodingKeys: String, CodingKey { case inputs, counted, summary, boardEdits, balances }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        inputs = try container.decode([[String]].self, forKey: .inputs)
        counted = try container.decode([String].self, forKey: .counted)
        summary = try container.decode([[String]].self, forKey: .summary)
        boardEdits = try container.decodeIfPresent([String: String].self, forKey: .boardEdits) ?? [:]
        balances = try container.decodeIfPresent([StandingBalance].self, forKey: .balances) ?? []
        guard !inputs.isEmpty, inputs.allSatisfy({ $0.count >= 2 }) else {
            throw DecodingError.dataCorruptedError(forKey: .inputs, in: container, debugDescription: "each input is a ctl command and its line, e.g. [\"pulse\", \"coin\"]")
        }
        guard summary.allSatisfy({ $0.count == 2 }) else {
            throw DecodingError.dataCorruptedError(forKey: .summary, in: container, debugDescription: "each entry is [counter, label]")
        }
    }
}

/// `total` = the sum of `parts` (counters) + `standing` (a gauge the daemon reports beside its
/// counters), a gauge no restart keeps: a restart books what stood as `voidedByRestart`.
public struct StandingBalance: Decodable, Sendable, Equatable {
    public let total: String
    public let parts: [String]
    public let standing: String
    public let voidedByRestart: String

    public init(total: String, parts: [String], standing: String, voidedByRestart: String) {
        self.total = total
        self.parts = parts
        self.standing = standing
        self.voidedByRestart = voidedByRestart
    }
}
