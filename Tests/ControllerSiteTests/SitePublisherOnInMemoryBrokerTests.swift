import ControllerDaemon
import ControllerFSM
import ControllerHost
import ControllerMQTT
@testable import ControllerSite
import ControllerStore
import ControllerTestSupport
import Foundation
import Logging
import Testing
import Turnstile

/// The site publisher with its store and status, on the in-memory broker: the outbox, the
/// broker going away, two controllers on one node and an access list, with no mosquitto.
@Suite("The site publisher on the in-memory broker: the outbox, outages, conflicts, the access list")
struct SitePublisherOnInMemoryBrokerTests {
    typealias App = TurnstileApplication
    static let patience: Duration = TestTimeouts.daemon

    /// A node's publisher, its store and status, as the daemon makes them.
    struct Node {
        let publisher: SitePublisher<App>
        let store: CountStore<App>
        let status: StatusHub<App>
        let directory: TemporaryDirectory

        init(_ name: String, on broker: InMemoryBroker) throws {
            directory = try TemporaryDirectory()
            store = try CountStore<App>.open(path: directory.url.appendingPathComponent("\(name).sqlite").path)
            _ = try store.beginSession(monotonicOrigin: .zero, wallClockOrigin: Date())
            status = StatusHub<App>(board: "sim", chip: "sim", inbox: nil)
            status.publishPhase(.running, degradedReason: nil)
            var logger = Logger(label: "site-publisher-\(name)")
            logger.logLevel = .critical
            publisher = SitePublisher<App>(
                store: store, topics: try SiteTopics(prefix: "nodes", node: "node1"), discovery: nil, status: status, logger: logger,
                answer: { _ in .accepted("nothing") })
            let configuration = try InMemoryBrokerTests.configuration(
                "\(name)-publisher", cleanSession: false,
                will: MQTTWill(topic: "nodes/node1/availability", payload: Array(SitePayload.offline.utf8)))
            try publisher.start(configuration: configuration, connect: broker.connector)
        }

        /// `count` coins from `first`, committed as the store service commits them.
        @discardableResult
        func coins(_ count: Int, from first: Int) throws -> DurableTotals<App> {
            var counters = TurnstileCounters()
            var entries: [LedgerEntry<App>] = []
            for coin in first..<(first + count) {
                counters.coins = coin
                entries.append(LedgerEntry(
                    time: MachineInstant(nanoseconds: Int64(coin) * 1_000_000), state: .unlocked, credit: 1, counters: counters,
                    cause: .edge(.coin, active: true)))
            }
            let totals = try store.append(entries)
            publisher.committed(totals)
            return totals
        }

        var site: SiteSnapshot? { status.snapshot().site }
    }

    /// The sequences of the events on the broker, in the order it took them.
    static func sequences(_ broker: InMemoryBroker) -> [Int] {
        broker.published(on: "nodes/node1/events").compactMap {
            (try? JSONDecoder().decode(SitePayload.Event.self, from: Data($0.payload))).map { Int($0.sequence) }
        }
    }

    @Test("every event reaches the broker in order, across the broker going away and coming back; the mark moves only over what it acknowledged")
    func outboxAcrossAnOutage() async throws {
        let broker = InMemoryBroker()
        let node = try Node("a", on: broker)
        defer { node.publisher.finish(lastTotals: nil) }
        try node.coins(20, from: 1)
        #expect(await poll(for: Self.patience) { Self.sequences(broker).count >= 20 }, "\(Self.sequences(broker))")
        #expect(await poll(for: Self.patience) { (try? node.store.deliveryMark(of: "mqtt nodes/node1").delivered) == 20 })

        broker.goDown()
        #expect(await poll(for: Self.patience) { node.site?.connected == false })
        try node.coins(30, from: 21)
        #expect(await poll(for: Self.patience) { node.site?.outboxDepth == 30 }, "\(String(describing: node.site))")
        #expect((try node.store.deliveryMark(of: "mqtt nodes/node1")).delivered == 20, "nothing acknowledged while the broker is away")
        broker.comeUp()
        #expect(await poll(for: Self.patience) { (try? node.store.deliveryMark(of: "mqtt nodes/node1").delivered) == 50 })
        let seen = Self.sequences(broker)
        // Each event at least once, in order of first sight (QoS 1: a resend may repeat one).
        var firsts: [Int] = []
        for sequence in seen where !firsts.contains(sequence) { firsts.append(sequence) }
        #expect(firsts == Array(1...50), "\(seen)")
        #expect(await poll(for: Self.patience) { node.site?.outboxDepth == 0 && node.site?.connected == true })
        #expect(broker.retained("nodes/node1/availability") == Array(SitePayload.online.utf8))
    }

    @Test("two controllers on one node: the later one yields and keeps its events in its outbox, the earlier one goes on; both say so in status")
    func twoControllersOnOneNode() async throws {
        let broker = InMemoryBroker()
        let first = try Node("first", on: broker)
        defer { first.publisher.finish(lastTotals: nil) }
        try first.coins(3, from: 1)
        #expect(await poll(for: Self.patience) { Self.sequences(broker).count >= 3 })
        // Started later (its claim's `since` is later): it finds the first's claim retained at
        // connecting, then its own lands, then the first answers with its claim again.
        let second = try Node("second", on: broker)
        defer { second.publisher.finish(lastTotals: nil) }
        #expect(await poll(for: Self.patience) { second.site?.conflict?.yielded == true }, "\(String(describing: second.site))")
        #expect(await poll(for: Self.patience) { first.site?.conflict?.yielded == false }, "\(String(describing: first.site))")
        #expect(first.site?.conflict?.instance == second.publisher.claim.instance)
        try second.coins(5, from: 1)
        try first.coins(2, from: 4)
        #expect(await poll(for: Self.patience) { (try? first.store.deliveryMark(of: "mqtt nodes/node1").delivered) == 5 })
        #expect(Set(Self.sequences(broker)) == Set(1...5), "only the first's events: the second's would share its sequence numbers")
        #expect((try second.store.deliveryMark(of: "mqtt nodes/node1")).delivered == 0)
        #expect(broker.retained("nodes/node1/claim").flatMap(SitePayload.Claim.decode)?.instance == first.publisher.claim.instance)
    }

    @Test("an access list that refuses the node's claim: events wait for the claim's patience, then go without it")
    func claimRefused() async throws {
        let broker = InMemoryBroker { _, topic, _ in !topic.hasSuffix("/claim") }
        let node = try Node("a", on: broker)
        defer { node.publisher.finish(lastTotals: nil) }
        let started = ContinuousClock.now
        try node.coins(4, from: 1)
        #expect(await poll(for: Self.patience + SiteLimits.claimPatience) { Self.sequences(broker) == [1, 2, 3, 4] })
        #expect(ContinuousClock.now - started >= SiteLimits.claimPatience - .milliseconds(100), "not before the patience")
    }

    @Test("a stop with the broker up: the outbox empties, the node says offline, retained; with the broker away, events stay for the next start")
    func stop() async throws {
        let broker = InMemoryBroker()
        let node = try Node("a", on: broker)
        let totals = try node.coins(5, from: 1)
        node.publisher.finish(lastTotals: totals)
        #expect((try node.store.deliveryMark(of: "mqtt nodes/node1")).delivered == 5)
        #expect(broker.retained("nodes/node1/availability") == Array(SitePayload.offline.utf8))

        let away = InMemoryBroker()
        let other = try Node("b", on: away)
        away.goDown()
        let more = try other.coins(3, from: 1)
        other.publisher.finish(lastTotals: more)
        #expect((try other.store.deliveryMark(of: "mqtt nodes/node1")).delivered == 0, "what the broker did not acknowledge stays in the outbox")
    }
}
