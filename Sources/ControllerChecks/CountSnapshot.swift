import Foundation

/// The counts a daemon reports, as the checks read them: its counters (`ctl status --json`'s
/// `counters`, `stats --json`'s `totals`), its top-level numbers (gauges such as a standing
/// credit), its flags (`stats`' `…Balances`) and its phase.
public struct CountSnapshot: Sendable, Equatable {
    public var counts: [String: Int]
    public var numbers: [String: Int]
    public var flags: [String: Bool]
    public var phase: String?

    public init(counts: [String: Int], numbers: [String: Int] = [:], flags: [String: Bool] = [:], phase: String? = nil) {
        self.counts = counts
        self.numbers = numbers
        self.flags = flags
        self.phase = phase
    }

    /// `ctl status --json`'s reply: `{"status": {"counters": {...}, "phase": ..., ...}}`.
    public static func status(json: String) throws(CheckFailure) -> CountSnapshot {
        let top = try fields(json, what: "`ctl status --json`'s reply")
        guard case .object(let status) = top["status"] else { throw CheckFailure("`ctl status --json` replied without a \"status\" object: \(json.prefix(300))") }
        return try snapshot(status, countsKey: "counters", what: "`ctl status --json`")
    }

    /// `stats --json`'s output: `{"totals": {...}, "sessions": N, ...}`.
    public static func stats(json: String) throws(CheckFailure) -> CountSnapshot {
        try snapshot(try fields(json, what: "`stats --json`'s output"), countsKey: "totals", what: "`stats --json`")
    }

    private static func snapshot(_ fields: [String: JSONField], countsKey: String, what: String) throws(CheckFailure) -> CountSnapshot {
        guard case .object(let countFields) = fields[countsKey] else { throw CheckFailure("\(what) has no \"\(countsKey)\" object") }
        var snapshot = CountSnapshot(counts: countFields.compactMapValues { if case .integer(let value) = $0 { value } else { nil } })
        for (key, field) in fields {
            switch field {
            case .integer(let value): snapshot.numbers[key] = value
            case .flag(let value): snapshot.flags[key] = value
            case .text(let value) where key == "phase": snapshot.phase = value
            default: break
            }
        }
        return snapshot
    }

    private static func fields(_ json: String, what: String) throws(CheckFailure) -> [String: JSONField] {
        try decodeJSON(json, what: what, expected: "a JSON object")
    }
}
