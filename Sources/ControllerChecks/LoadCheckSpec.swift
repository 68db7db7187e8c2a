import Foundation

/// What the outbox's load test (scripts/site-load.sh) drives a product with: its package's
/// `packaging/checks.json`, entry `"load"`.
public struct LoadCheckSpec: Decodable, Sendable {
    /// The scenario lines of one cycle, evenly spaced (`["coin", "push"]`): each a counted event.
    public let cycle: [String]
    /// Changes to the product's `boards/sim.toml` (see ``BoardEdits``) that make its lines fast
    /// enough for the rate: short pulses and debounce, no bounce.
    public let boardEdits: [String: String]

    enum CodingKeys: String, CodingKey { case cycle, boardEdits }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cycle = try container.decode([String].self, forKey: .cycle)
        boardEdits = try container.decodeIfPresent([String: String].self, forKey: .boardEdits) ?? [:]
        guard !cycle.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .cycle, in: container, debugDescription: "a cycle has at least one line")
        }
    }
}

/// The outbox's load: a scenario of counted events at a steady rate, and the check that every
/// one reached the broker's subscriber, each sequence once and in order.
public enum OutboxLoad {
    /// The first event comes this long after the start.
    public static let startSeconds = 0.5
    /// The scenario's `end` comes this long after its last event.
    public static let endAfterSeconds = 1.0

    /// `seconds` of `spec`'s cycles, `rate` events a second, then `end`; and how many events.
    public static func script(_ spec: LoadCheckSpec, seconds: Double, rate: Int) -> (text: String, events: Int) {
        let cycles = Int(seconds * Double(rate)) / spec.cycle.count
        let gap = 1.0 / Double(rate)
        var lines: [String] = []
        lines.reserveCapacity(cycles * spec.cycle.count + 1)
        for cycle in 0..<cycles {
            for (index, line) in spec.cycle.enumerated() {
                let time = startSeconds + Double(cycle * spec.cycle.count + index) * gap
                lines.append(String(format: "%.6f %@", time, line))
            }
        }
        let end = startSeconds + Double(cycles * spec.cycle.count) * gap + endAfterSeconds
        lines.append(String(format: "%.6f end", end))
        return (lines.map { $0 + "\n" }.joined(), cycles * spec.cycle.count)
    }

    /// What a subscriber received (`mosquitto_sub`'s lines, each an event's JSON with its
    /// `sequence`): how many messages, and whether the sequences, each taken the first time it
    /// came (QoS 1 may repeat one), are 1 to `expected` in order.
    public static func received(_ lines: String, expected: Int) -> (messages: Int, events: Int, inOrder: Bool) {
        var firstSeen: [Int] = []
        var seen: Set<Int> = []
        var messages = 0
        for line in lines.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            messages += 1
            guard let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let sequence = (object["sequence"] as? NSNumber)?.intValue else { continue }
            if seen.insert(sequence).inserted { firstSeen.append(sequence) }
        }
        return (messages, firstSeen.count, firstSeen == Array(0..<expected).map { $0 + 1 })
    }
}
