import ControllerHost
import ControllerStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a node publishes, as JSON objects with sorted keys (docs/reference/mqtt.md, "Topics and payloads").
package enum SitePayload {
    package static let online = "online"
    package static let offline = "offline"

    /// One counted event (`PREFIX/NODE/events`, QoS 1). `replayed`: published by an earlier run
    /// or counted while no broker took it; a consumer keeps the first of each (node, sequence).
    package struct Event: Codable, Equatable {
        var node: String
        var sequence: Int64
        var session: Int64
        var time: String
        var unixNanoseconds: Int64
        var kind: String
        var amount: Int
        var before: String
        var after: String?
        var replayed: Bool
    }

    /// The controller's state and gauges after its last committed step (retained).
    /// `state` is the first region's innermost state; `active` every active state, of every
    /// region, the superstates around them included, in the order of the state enum: what Home
    /// Assistant's templates ask (`'fault' in value_json.active`). Absent from an earlier
    /// version's message, which a fleet still reads.
    package struct State: Codable, Equatable {
        var node: String
        var app: String
        var state: String
        var active: [String]?
        var gauges: [String: Int]
    }

    /// Every kind's total since the database began, as `stats` shows them, and the time of the
    /// last counted event (retained).
    package struct Counters: Codable, Equatable {
        var node: String
        var app: String
        var totals: [String: Int]
        var lastEvent: String?
        var lastEventUnixNanoseconds: Int64?
    }

    /// How the daemon is doing (`PREFIX/NODE/health`, retained): its phase, its outbox's backlog
    /// and its problems in words (``DaemonSnapshot/problems(faultStates:)``), sent when one of
    /// them changes and looked at once a second. `started`: the process's start, in Unix
    /// nanoseconds, so a watcher can say since when a node is online.
    package struct Health: Codable, Equatable {
        var node: String
        var app: String
        var phase: String
        var outbox: Int
        var problems: [String]
        var started: Int64
    }

    /// Each level and condition input, on or off (`PREFIX/NODE/inputs`, retained): the barrier's
    /// vehicle loop, the turnstile's fire alarm; sent when one changes. Home Assistant reads a
    /// binary sensor per input from it.
    package struct Inputs: Codable, Equatable {
        var node: String
        var app: String
        var levels: [String: Bool]
    }

    /// A process's claim on its node id (`PREFIX/NODE/claim`, retained): who publishes as the
    /// node now. `instance` is 32 random hex digits made at the process's start; `since` its
    /// start in Unix nanoseconds, which orders two claims (the later start yields).
    package struct Claim: Codable, Equatable, Sendable {
        var instance: String
        var host: String
        var pid: Int64
        var since: Int64
        var app: String

        /// Whether `self` was made before `other` (ties broken by the instance id): of two
        /// live controllers on one node, the one that started later yields.
        func precedes(_ other: Claim) -> Bool {
            since != other.since ? since < other.since : instance < other.instance
        }

        /// A claim read from the broker: nil unless its instance is 32 lowercase hex digits;
        /// its host is escaped and cut so a log line never carries what it sent raw.
        static func decode(_ payload: [UInt8]) -> Claim? {
            guard payload.count <= 1_024, var claim = try? JSONDecoder().decode(Claim.self, from: Data(payload)),
                claim.instance.utf8.count == 32,
                claim.instance.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            else { return nil }
            claim.host = SiteIdentity.escaped(claim.host.prefix(64), keeping: SiteIdentity.isWordByte)
            claim.app = SiteIdentity.escaped(claim.app.prefix(64), keeping: SiteIdentity.isWordByte)
            return claim
        }
    }

    package static func event(_ event: OutboxEvent, node: String, replayed: Bool) -> [UInt8] {
        encode(Event(
            node: node, sequence: event.sequence, session: event.session, time: timestamp(event.unixNanoseconds),
            unixNanoseconds: event.unixNanoseconds, kind: event.kind, amount: event.amount, before: event.before, after: event.after,
            replayed: replayed))
    }

    package static func state<App: ControllerApplication>(_ totals: DurableTotals<App>, node: String, app: App.Type) -> [UInt8] {
        encode(State(node: node, app: App.name, state: totals.state.name, active: totals.configuration.map(\.name), gauges: totals.gauges))
    }

    package static func counters<App: ControllerApplication>(_ totals: DurableTotals<App>, node: String, app: App.Type) -> [UInt8] {
        encode(Counters(
            node: node, app: App.name, totals: totals.counters, lastEvent: totals.lastEventUnixNanoseconds.map(timestamp),
            lastEventUnixNanoseconds: totals.lastEventUnixNanoseconds))
    }

    /// ISO 8601 in UTC with milliseconds: `2026-11-27T17:03:04.512Z`.
    package static func timestamp(_ unixNanoseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(unixNanoseconds) / 1e9)
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    package static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and booleans always encode.
        return (try? encoder.encode(value)).map { Array($0) } ?? []
    }
}
