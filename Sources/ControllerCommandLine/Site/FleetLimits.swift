/// The bounds of `fleet`.
enum FleetLimits {
    static let defaultWaitSeconds = 2.0
    static let waitSeconds = 0.1...60.0
    static let connectPatience: Duration = .seconds(10)
    /// How often a wait looks again when nothing rings.
    static let pollNanoseconds: Int64 = 50_000_000
    /// Nodes it keeps: a broker that offers more is not a site this view can show.
    static let maxNodes = 10_000

    /// A health message longer than this is not one a daemon sends (its problems are a few
    /// short lines): it is left out.
    static let maxHealthBytes = 8_192
    /// Problems shown per node.
    static let maxProblems = 16
}

/// The retained topics `fleet` reads under each node (`PREFIX/+/LEAF`): the one list its
/// subscriptions, its reading (``FleetView/take(_:now:)``) and its tests are made from.
enum FleetLeaf: String, CaseIterable, Sendable, Hashable, Comparable {
    case availability, state, counters, health

    static func < (lhs: FleetLeaf, rhs: FleetLeaf) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
