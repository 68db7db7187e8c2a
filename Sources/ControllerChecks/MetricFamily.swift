import Foundation

/// `/metrics` as a consumer read it: the families the Prometheus project's own parser
/// (`prometheus_client.parser.text_string_to_metric_families`) found, written out as JSON by
/// scripts/check-status-endpoints.sh so that the exposition is judged by the parser a scraper
/// uses, not by one of ours.
public struct MetricFamily: Decodable, Sendable, Equatable {
    public struct Sample: Decodable, Sendable, Equatable {
        public let name: String
        public let labels: [String: String]
        /// As the parser gave it (`1.0`, `+Inf`, `nan`).
        public let value: Double

        enum CodingKeys: String, CodingKey { case name, labels, value }

        public init(name: String, labels: [String: String], value: Double) {
            self.name = name
            self.labels = labels
            self.value = value
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            labels = try container.decode([String: String].self, forKey: .labels)
            let text = try container.decode(String.self, forKey: .value)
            guard let value = Double(text) else {
                throw DecodingError.dataCorruptedError(forKey: .value, in: container, debugDescription: "\(text) is not a number")
            }
            self.value = value
        }
    }

    /// Without a counter's `_total` (the parser's naming).
    public let name: String
    /// `counter`, `gauge`, `histogram`, ….
    public let type: String
    public let samples: [Sample]

    public init(name: String, type: String, samples: [Sample]) {
        self.name = name
        self.type = type
        self.samples = samples
    }

    /// The parser's output.
    public static func decode(_ json: String) throws(CheckFailure) -> [MetricFamily] {
        try decodeJSON(json, what: "the Prometheus parser's output", expected: "a JSON list of families {name, type, samples}")
    }
}
