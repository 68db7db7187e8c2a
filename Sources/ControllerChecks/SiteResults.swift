import Foundation

/// What the site test's controllers did, read back once every one has stopped: each took the
/// site-wide emergency within the limit (by its own trace: the step's time since its origin,
/// against the moment the command was published), and `fleet --json` lists every node offline
/// with sums per application equal to the sums of every daemon's `stats --json` totals.
public struct SiteResults: Sendable {
    /// A stopped node's records: its trace (`run --json`'s standard output) and `stats --json`.
    public struct Node: Sendable {
        public let number: Int
        public let trace: String
        public let stats: String

        public init(number: Int, trace: String, stats: String) {
            self.number = number
            self.trace = trace
            self.stats = stats
        }
    }

    /// Milliseconds from the publication to each node's emergency step, fastest first.
    public private(set) var latencies: [Double] = []
    /// Every daemon's `stats` totals summed per application (as `fleet` names it) and kind.
    public private(set) var sums: [String: [String: Int]] = [:]
    /// What is wrong; empty when nothing is.
    public private(set) var problems: [String] = []

    /// `fleet`: `fleet --json`'s output; `event`: the trace's event of the emergency
    /// (`emergencyOn`); `published`: when the command was published (Unix nanoseconds).
    public init(fleet: String, nodes: [Node], event: String, published: Int64, limitMilliseconds: Double) throws(CheckFailure) {
        let listing: FleetListing = try decodeJSON(fleet, what: "`fleet --json`'s output", expected: "a listing with controllers and sums")
        let appOfNode = Dictionary(listing.controllers.map { ($0.node, $0.app ?? "?") }, uniquingKeysWith: { first, _ in first })
        for node in nodes {
            let name = "gate-\(node.number)"
            var origin: Int64?
            var emergencyStep: Double?
            for line in node.trace.split(separator: "\n") where line.hasPrefix("{") {
                let record: TraceRecord = try decodeJSON(String(line), what: "a line of \(name)'s trace", expected: "a record")
                if record.type == "ready", origin == nil { origin = record.originUnixNanoseconds }
                if record.type == "transition", record.event == event, emergencyStep == nil { emergencyStep = record.t }
            }
            guard let origin else { throw CheckFailure("\(name)'s trace has no ready record with its originUnixNanoseconds") }
            guard let emergencyStep else {
                problems.append("\(name) never took the emergency (no \(event) transition in its trace)")
                continue
            }
            latencies.append(Double(origin + Int64((emergencyStep * 1e9).rounded()) - published) / 1e6)
            let stats: StatsTotals = try decodeJSON(node.stats, what: "\(name)'s `stats --json`", expected: "an object with totals")
            let app = appOfNode[name] ?? "?"
            for (kind, count) in stats.totals { sums[app, default: [:]][kind, default: 0] += count }
        }
        latencies.sort()
        let expected = nodes.map { "gate-\($0.number)" }.sorted()
        let listed = listing.controllers.map(\.node).sorted()
        if listed != expected {
            problems.append("fleet lists \(listed.count) nodes, not the \(expected.count) that ran: \(listed.prefix(5))…")
        }
        for controller in listing.controllers where controller.availability != "offline" {
            problems.append("\(controller.node) is listed \(controller.availability ?? "without availability"), not offline, after it stopped")
        }
        if listing.sums != sums {
            problems.append("fleet's sums \(listing.sums) are not the daemons' stats \(sums)")
        }
        if let slowest = latencies.last, slowest > limitMilliseconds {
            problems.append("the slowest controller took the emergency \(slowest.formatted(digits: 1)) ms after its publication, over the \(limitMilliseconds.formatted(digits: 0)) ms limit")
        }
    }

    /// The median latency, the slowest, and how many.
    public var latencySummary: String {
        guard let slowest = latencies.last else { return "no controller took the emergency" }
        let median = latencies[latencies.count / 2]
        return "p50 \(median.formatted(digits: 1)) ms, slowest \(slowest.formatted(digits: 1)) ms over \(latencies.count) controllers"
    }

    /// The sums as a line: each application's non-zero counts (`barrier: passages 3; turnstile: coins 10, passages 10`).
    public var sumsSummary: String {
        sums.sorted { $0.key < $1.key }.map { app, counts in
            let counted = counts.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            return "\(app): " + (counted.isEmpty ? "nothing counted" : counted.joined(separator: ", "))
        }.joined(separator: "; ")
    }

    /// Every count the sums hold.
    public var countedTotal: Int { sums.values.reduce(0) { $0 + $1.values.reduce(0, +) } }
}

private struct FleetListing: Decodable {
    struct Controller: Decodable {
        let node: String
        let app: String?
        let availability: String?
    }
    let controllers: [Controller]
    let sums: [String: [String: Int]]
}

private struct StatsTotals: Decodable {
    let totals: [String: Int]
}

private struct TraceRecord: Decodable {
    let type: String
    let originUnixNanoseconds: Int64?
    let event: String?
    let t: Double?
}

extension Double {
    /// The number with `digits` after the point, as a report shows it.
    func formatted(digits: Int) -> String { String(format: "%.\(digits)f", self) }
}
