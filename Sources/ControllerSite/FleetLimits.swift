/// The bounds of `fleet`. Everything it reads comes from the broker, where any client the ACL
/// lets write may have left anything: each value is bounded where the message is taken
/// (``FleetView/take(_:now:)``), before any output — the table, `--json`, the site page and its
/// `/site.json` — sees it, and a value cut or a message not read says so in each.
package enum FleetLimits {
    package static let defaultWaitSeconds = 2.0
    package static let waitSeconds = 0.1...60.0
    package static let connectPatience: Duration = .seconds(10)
    /// How often a wait looks again when nothing rings.
    package static let pollNanoseconds: Int64 = 50_000_000
    /// Nodes it keeps: a broker that offers more is not a site this view can show.
    package static let maxNodes = 10_000

    /// The most of one message `fleet` takes (its client's bound: the rest never leaves
    /// libmosquitto's buffer); a longer message is not read, and its node says so. A node's
    /// messages are a few hundred bytes: its state and counters, a few short problems.
    package static let maxPayloadBytes = 16_384
    /// A value (availability, application, state, phase), at most: longer is cut, ending in
    /// `… (N bytes)`. A state or an application is a word.
    package static let maxValueCharacters = 128
    /// A gauge's or a counted kind's name, at most (cut the same way).
    package static let maxNameCharacters = 64
    /// Gauges and totals a node shows, each at most: the first by name; the count of the rest
    /// is said.
    package static let maxNamedValues = 64
    /// Problems shown per node, and the length of each.
    package static let maxProblems = 16
    package static let maxProblemCharacters = 512
}

/// The retained topics `fleet` reads under each node (`PREFIX/+/LEAF`): the one list its
/// subscriptions, its reading (``FleetView/take(_:now:)``) and its tests are made from.
package enum FleetLeaf: String, CaseIterable, Sendable, Hashable, Comparable {
    case availability, state, counters, health

    package static func < (lhs: FleetLeaf, rhs: FleetLeaf) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
