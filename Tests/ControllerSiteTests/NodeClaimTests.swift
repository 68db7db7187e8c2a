import ControllerDaemon
@testable import ControllerSite
import Testing

/// The node's claim as a value: every rule of one node id, one controller, with no broker and
/// every instant given.
@Suite("The node's claim, with no broker: landing, settling, yielding, takeovers")
struct NodeClaimTests {
    static let start = ContinuousClock.now

    static func claim(_ instance: Character, since: Int64, host: String = "host1", pid: Int64 = 100) -> SitePayload.Claim {
        SitePayload.Claim(instance: String(repeating: instance, count: 32), host: host, pid: pid, since: since, app: "turnstile")
    }

    static func at(_ seconds: Double) -> ContinuousClock.Instant { start + .seconds(seconds) }

    static let own = claim("a", since: 2_000)
    static let never: @Sendable (SitePayload.Claim) -> Bool = { _ in false }

    @Test("events wait for the own claim to land; it lets them go at once")
    func ownClaimLands() {
        var node = NodeClaim(own: Self.own)
        #expect(node.connected(at: Self.at(0)) == true)
        #expect(node.allowsEvents(at: Self.at(0)).allowed == false)
        #expect(node.received(Self.own, at: Self.at(0.1), isGone: Self.never) == .own)
        #expect(node.allowsEvents(at: Self.at(0.1)) == (true, false))
        #expect(node.nextDue == nil)
    }

    @Test("a claim that never lands lets events go after the patience, said once, and not a moment before")
    func unlandedClaim() {
        var node = NodeClaim(own: Self.own)
        _ = node.connected(at: Self.at(0))
        #expect(node.nextDue == Self.at(0) + SiteLimits.claimPatience)
        #expect(node.allowsEvents(at: Self.at(0) + SiteLimits.claimPatience - .nanoseconds(1)).allowed == false)
        #expect(node.allowsEvents(at: Self.at(0) + SiteLimits.claimPatience) == (true, true))
        #expect(node.allowsEvents(at: Self.at(60)) == (true, false), "said once")
        #expect(node.nextDue == nil)
        // A reconnection does not start the patience again: it counts from the first connection.
        var later = NodeClaim(own: Self.own)
        _ = later.connected(at: Self.at(0))
        _ = later.connected(at: Self.at(4))
        #expect(later.allowsEvents(at: Self.at(0) + SiteLimits.claimPatience).allowed)
    }

    @Test("another's claim found at connecting: events wait the settling time after its arrival, or not at all for a gone process of this host")
    func earlierClaim() {
        var node = NodeClaim(own: Self.own)
        _ = node.connected(at: Self.at(0))
        let earlier = Self.claim("b", since: 1_000)
        #expect(node.received(earlier, at: Self.at(0.2), isGone: Self.never) == .earlier)
        // A second sighting does not move the settling time.
        #expect(node.received(earlier, at: Self.at(1), isGone: Self.never) == .earlier)
        #expect(node.received(Self.own, at: Self.at(0.3), isGone: Self.never) == .own)
        let settled = Self.at(0.2) + SiteLimits.claimSettle
        #expect(node.nextDue == settled)
        #expect(node.allowsEvents(at: settled - .nanoseconds(1)).allowed == false)
        #expect(node.allowsEvents(at: settled).allowed)
        #expect(node.conflict == nil, "an earlier run's claim is not a conflict")

        var gone = NodeClaim(own: Self.own)
        _ = gone.connected(at: Self.at(0))
        let outcome = gone.received(earlier, at: Self.at(0.2)) { $0 == earlier }
        #expect(outcome == .gone)
        _ = gone.received(Self.own, at: Self.at(0.3), isGone: Self.never)
        #expect(gone.allowsEvents(at: Self.at(0.3)).allowed, "no wait for a process that is gone")
    }

    @Test("a live controller that started earlier claims the node: this one yields for good, and connections mean nothing to it")
    func laterOneYields() {
        var node = NodeClaim(own: Self.own)
        _ = node.connected(at: Self.at(0))
        _ = node.received(Self.own, at: Self.at(0.1), isGone: Self.never)
        let first = Self.claim("c", since: 1_000, host: "host2", pid: 7)
        #expect(node.received(first, at: Self.at(1), isGone: Self.never) == .conflict(yield: true, first: true))
        #expect(node.yielded)
        #expect(node.conflict == SiteConflict(instance: first.instance, host: "host2", pid: 7, since: 1_000, yielded: true))
        #expect(node.allowsEvents(at: Self.at(100)).allowed == false)
        #expect(node.nextDue == nil)
        #expect(node.takeReassert() == false, "the one that yields never claims again")
        // Seen again: it is not a new yield, and nothing is said twice.
        #expect(node.received(first, at: Self.at(2), isGone: Self.never) == .conflict(yield: false, first: false))
        #expect(node.connected(at: Self.at(3)) == false)
    }

    @Test("a controller that started later claims the node: this one goes on and claims again, once per instance")
    func earlierOneAnswers() {
        var node = NodeClaim(own: Self.own)
        _ = node.connected(at: Self.at(0))
        _ = node.received(Self.own, at: Self.at(0.1), isGone: Self.never)
        let later = Self.claim("d", since: 3_000)
        #expect(node.received(later, at: Self.at(1), isGone: Self.never) == .conflict(yield: false, first: true))
        #expect(node.takeReassert() == true)
        #expect(node.takeReassert() == false, "asking clears it")
        #expect(node.received(later, at: Self.at(2), isGone: Self.never) == .conflict(yield: false, first: false))
        #expect(node.takeReassert() == false, "answered once per instance")
        #expect(node.allowsEvents(at: Self.at(2)).allowed)
        #expect(node.conflict?.yielded == false)
        let another = Self.claim("e", since: 4_000)
        #expect(node.received(another, at: Self.at(3), isGone: Self.never) == .conflict(yield: false, first: true))
        #expect(node.takeReassert() == true)
    }

    @Test("two claims of one instant: the smaller instance id goes on, on both sides")
    func tieBrokenByInstance() {
        let small = Self.claim("1", since: 5_000)
        let large = Self.claim("9", since: 5_000)
        var smallNode = NodeClaim(own: small)
        var largeNode = NodeClaim(own: large)
        _ = smallNode.received(small, at: Self.at(0), isGone: Self.never)
        _ = largeNode.received(large, at: Self.at(0), isGone: Self.never)
        #expect(smallNode.received(large, at: Self.at(1), isGone: Self.never) == .conflict(yield: false, first: true))
        #expect(largeNode.received(small, at: Self.at(1), isGone: Self.never) == .conflict(yield: true, first: true))
    }

    @Test("quick disconnects: counted within the window, the takeover pattern at its count; a stop or a long connection is none")
    func quickDisconnects() {
        var node = NodeClaim(own: Self.own)
        var seen: [Int?] = []
        for second in 0..<SiteLimits.takeoverCount {
            let at = Double(second) * 10
            _ = node.connected(at: Self.at(at))
            seen.append(node.disconnected(unexpectedly: true, at: Self.at(at + 1)))
        }
        #expect(seen == Array(1...SiteLimits.takeoverCount).map { $0 })
        // A clean end, and a connection that lasted, are not quick disconnects.
        _ = node.connected(at: Self.at(40))
        #expect(node.disconnected(unexpectedly: false, at: Self.at(40.5)) == nil)
        _ = node.connected(at: Self.at(41))
        #expect(node.disconnected(unexpectedly: true, at: Self.at(41) + SiteLimits.quickDisconnect) == nil)
        // Past the window, the old ones no longer count toward a takeover; status keeps the total.
        let late = Self.at(1) + SiteLimits.takeoverWindow + .seconds(30)
        _ = node.connected(at: late)
        #expect(node.disconnected(unexpectedly: true, at: late + .seconds(1)) == 1)
        #expect(node.quickDisconnectCount == SiteLimits.takeoverCount + 1)
    }
}
