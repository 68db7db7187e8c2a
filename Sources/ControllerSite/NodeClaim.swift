import ControllerDaemon

/// One node id, one controller, as a value: what a publisher decides from the claims it sees on
/// its node's claim topic, its connections and the time. It holds no broker, no lock and no
/// clock — every instant is given — so each rule is tested alone (`NodeClaimTests`), and the
/// publisher keeps one under its lock.
///
/// The rules:
/// - The node's own claim coming back from the broker (it is retained there) is the claim
///   landing. Until then, events wait; a claim that never lands lets them go after
///   ``SiteLimits/claimPatience`` from the first connection, said once (an ACL that does not let
///   the node read or write its claim topic).
/// - Another instance's claim found before the own one landed is an earlier run's (this node's
///   last, or a live controller that will show itself again): events wait
///   ``SiteLimits/claimSettle`` for it, or not at all when it was a process of this host that is
///   gone.
/// - Another instance's claim after the own one landed is a conflict: the one that started later
///   yields (publishes nothing more), the other publishes its claim again, once per instance, so
///   the later one learns of it.
/// - A connection the broker closes within ``SiteLimits/quickDisconnect`` of accepting it is a
///   quick disconnect; ``SiteLimits/takeoverCount`` of them within
///   ``SiteLimits/takeoverWindow`` is the pattern of another client taking the client id.
package struct NodeClaim: Sendable {
    package typealias Instant = ContinuousClock.Instant

    /// What a claim seen on the topic meant.
    package enum Outcome: Equatable, Sendable {
        /// The node's own claim: it has landed.
        case own
        /// Another instance's, found at connecting, of a process of this host that is gone.
        case gone
        /// Another instance's, found at connecting: events wait for it to show itself.
        case earlier
        /// Another live instance holds the node. `yield`: this one has just stopped publishing
        /// (it started later); `first`: the first claim seen from that instance.
        case conflict(yield: Bool, first: Bool)
    }

    /// This process's claim.
    package let own: SitePayload.Claim
    /// The own claim came back from the broker.
    package private(set) var landed = false
    /// Events wait until then for another instance's claim found at connecting.
    package private(set) var settleUntil: Instant?
    package private(set) var connectedAt: Instant?
    package private(set) var firstConnectedAt: Instant?
    /// That the own claim never landed was said.
    package private(set) var unlandedSaid = false
    /// Publish the own claim again (another instance claimed the node after this one).
    package private(set) var reassert = false
    /// Instances whose claims were answered with this one's.
    package private(set) var answered: Set<String> = []
    package private(set) var conflict: SiteConflict?
    /// Another controller that started first holds the node: this one publishes nothing more.
    package private(set) var yielded = false
    /// Quick disconnects within the takeover window, oldest first.
    package private(set) var recentQuickDisconnects: [Instant] = []
    /// Quick disconnects since the start, for status.
    package private(set) var quickDisconnectCount = 0

    package init(own: SitePayload.Claim) {
        self.own = own
    }

    /// A connection was accepted at `now`; false when the node is another's (the connection
    /// means nothing to it).
    package mutating func connected(at now: Instant) -> Bool {
        guard !yielded else { return false }
        connectedAt = now
        if firstConnectedAt == nil { firstConnectedAt = now }
        return true
    }

    /// The connection ended at `now`, by the broker or the network (`unexpectedly`) or by this
    /// side. The quick disconnects within the takeover window when this was one, or nil.
    package mutating func disconnected(unexpectedly: Bool, at now: Instant) -> Int? {
        guard unexpectedly, let since = connectedAt, now - since < SiteLimits.quickDisconnect else { return nil }
        quickDisconnectCount += 1
        recentQuickDisconnects = recentQuickDisconnects.filter { now - $0 < SiteLimits.takeoverWindow } + [now]
        return recentQuickDisconnects.count
    }

    /// `other` was seen on the claim topic at `now`. `isGone` says whether a claim names a
    /// process of this host that no longer exists (asked only for a claim found at connecting).
    package mutating func received(_ other: SitePayload.Claim, at now: Instant, isGone: (SitePayload.Claim) -> Bool) -> Outcome {
        if other.instance == own.instance {
            landed = true
            return .own
        }
        guard landed else {
            if isGone(other) { return .gone }
            if settleUntil == nil { settleUntil = now + SiteLimits.claimSettle }
            return .earlier
        }
        let yield = other.precedes(own)
        let first = answered.insert(other.instance).inserted
        let wasYielded = yielded
        conflict = SiteConflict(instance: other.instance, host: other.host, pid: other.pid, since: other.since, yielded: yield || wasYielded)
        if yield {
            yielded = true
        } else if first {
            reassert = true
        }
        return .conflict(yield: yield && !wasYielded, first: first)
    }

    /// Whether events (and the retained totals and inputs) may go out at `now`, and whether this
    /// is the moment to say that the own claim never landed (once).
    package mutating func allowsEvents(at now: Instant) -> (allowed: Bool, sayUnlanded: Bool) {
        if yielded { return (false, false) }
        if landed { return (settleUntil.map { now >= $0 } ?? true, false) }
        guard let first = firstConnectedAt, now - first >= SiteLimits.claimPatience else { return (false, false) }
        defer { unlandedSaid = true }
        return (true, !unlandedSaid)
    }

    /// When the claim's rules next let events go by themselves (another's claim settled, or
    /// the own never landed), for the publisher's sleep; nil when nothing waits on time.
    package var nextDue: Instant? {
        if yielded { return nil }
        if landed { return settleUntil }
        guard !unlandedSaid, let first = firstConnectedAt else { return nil }
        return first + SiteLimits.claimPatience
    }

    /// Whether the own claim is to be published again; asking clears it.
    package mutating func takeReassert() -> Bool {
        defer { reassert = false }
        return reassert
    }
}
