@testable import ControllerSite
import ControllerDaemon
import ControllerFSM
import ControllerHost
import ControllerMQTT
import ControllerStore
import Foundation
import Logging
import ControllerTestSupport
import Testing
import Turnstile

/// The site publisher in-process, on a real mosquitto and a fresh count store, without a daemon
/// around it: the health and inputs messages it keeps retained, as the status it reads changes.
@Suite(
    "The site publisher in-process: health and inputs on the broker",
    .enabled(if: Broker.enabled, "mosquitto, openssl or libmosquitto is not installed"))
struct SitePublisherTests {
    static let patience: Duration = TestTimeouts.daemon

    /// A publisher for `node` as the daemon makes one (no discovery; commands answered with
    /// nothing), its log quiet.
    static func publisher(
        node: String, store: CountStore<TurnstileApplication>, status: StatusHub<TurnstileApplication>
    ) throws -> SitePublisher<TurnstileApplication> {
        var logger = Logger(label: "site-publisher-test")
        logger.logLevel = .critical
        return SitePublisher<TurnstileApplication>(
            store: store, topics: try SiteTopics(prefix: "nodes", node: node), discovery: nil, status: status, logger: logger,
            answer: { _ in .accepted("nothing") })
    }

    /// A client of `broker`'s, started, that logs what arrives on `filter`.
    static func watch(_ broker: Broker, _ filter: String, clientID: String) throws -> (MQTTClient, EventLog) {
        let (watcher, log) = try MQTTClient.logged(broker.configuration(user: "reader", clientID: clientID))
        try watcher.subscribe(filter)
        try watcher.start()
        return (watcher, log)
    }

    static func last(_ log: EventLog, _ topic: String) -> String? {
        log.all.compactMap(\.receivedMessage).last { $0.topic == topic }.map { String(decoding: $0.payload, as: UTF8.self) }
    }

    @Test("the fire alarm's line and a lost edge reach inputs and health with no commit, a fault with its commit; the stop's last health says the outbox is empty")
    func healthAndInputs() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        let store = try CountStore<TurnstileApplication>.open(path: directory.url.appendingPathComponent("node1.sqlite").path)
        let status = StatusHub<TurnstileApplication>(board: "sim", chip: "sim", inbox: nil)
        status.publishPhase(.running, degradedReason: nil)
        status.publishLoop(state: .locked, events: 0, lostEdges: 0)
        let publisher = try Self.publisher(node: "node1", store: store, status: status)
        let (watcher, log) = try Self.watch(broker, "nodes/node1/#", clientID: "publisher-watch")
        defer { watcher.stop() }
        try publisher.start(configuration: broker.configuration(user: "node1", clientID: "node1-publisher"))
        let totals = DurableTotals<TurnstileApplication>(counters: [:], gauges: ["credit": 0], state: .locked, lastEventUnixNanoseconds: nil)

        // Once the claim has settled: the fire alarm off, nothing wrong.
        let first = await log.first(within: Self.patience) { _ in Self.last(log, "nodes/node1/health") != nil && Self.last(log, "nodes/node1/inputs") != nil }
        try #require(first != nil, "no health or inputs: \(log.all.compactMap(\.receivedMessage).map(\.topic))")
        #expect(Self.last(log, "nodes/node1/inputs") == #"{"app":"turnstile","levels":{"emergency":false},"node":"node1"}"#)
        #expect(Self.last(log, "nodes/node1/health")?.contains(#""outbox":0,"phase":"running","problems":[]"#) == true)

        // The fire line goes active (its bit: its position among the declared inputs) and an
        // edge is lost, with no step and so no commit: status' change alone wakes the publisher,
        // which sleeps without a timeout.
        let emergency = UInt64(1) << UInt64(TurnstileApplication.inputs.firstIndex { $0.role == "emergency" }!)
        status.publishLoop(state: .locked, events: 0, lostEdges: 1, inputsOn: emergency)
        let noted = await log.first(within: Self.patience) { _ in
            Self.last(log, "nodes/node1/inputs")?.contains(#""emergency":true"#) == true
                && Self.last(log, "nodes/node1/health")?.contains("1 input edge(s) lost") == true
        }
        #expect(noted != nil, "inputs \(Self.last(log, "nodes/node1/inputs") ?? "none"), health \(Self.last(log, "nodes/node1/health") ?? "none")")

        // The machine breaks: a commit wakes the publisher.
        status.publishLoop(state: .broken, events: 2, lostEdges: 1, inputsOn: emergency)
        publisher.committed(totals)
        let changed = await log.first(within: Self.patience) { _ in
            Self.last(log, "nodes/node1/inputs")?.contains(#""emergency":true"#) == true
                && Self.last(log, "nodes/node1/health")?.contains("in broken") == true
        }
        #expect(changed != nil, "inputs \(Self.last(log, "nodes/node1/inputs") ?? "none"), health \(Self.last(log, "nodes/node1/health") ?? "none")")
        #expect(Self.last(log, "nodes/node1/health")?.contains(#""problems":["in broken","1 input edge(s) lost before they were read"]"#) == true)

        publisher.finish(lastTotals: totals)
        let offline = await log.first(within: Self.patience) { _ in Self.last(log, "nodes/node1/availability") == "offline" }
        #expect(offline != nil)
        #expect(Self.last(log, "nodes/node1/health")?.contains(#""outbox":0"#) == true)
    }

    @Test("the stop publishes what is left in the outbox while the thread still hands events to the broker: every event acknowledged, the mark at the newest")
    func stopWhileEventsFlow() async throws {
        let broker = try Broker.start()
        defer { broker.stop() }
        let directory = try TemporaryDirectory()
        let store = try CountStore<TurnstileApplication>.open(path: directory.url.appendingPathComponent("node2.sqlite").path)
        _ = try store.beginSession(monotonicOrigin: .zero, wallClockOrigin: Date())
        let status = StatusHub<TurnstileApplication>(board: "sim", chip: "sim", inbox: nil)
        status.publishPhase(.running, degradedReason: nil)
        let publisher = try Self.publisher(node: "node2", store: store, status: status)
        let (watcher, log) = try Self.watch(broker, "nodes/node2/events", clientID: "publisher-watch-2")
        defer { watcher.stop() }
        try publisher.start(configuration: broker.configuration(user: "node2", clientID: "node2-publisher"))

        // Coins in batches, each committed as the store service commits them, and the stop
        // straight after the last: the outbox thread is still handing events over.
        var counters = TurnstileCounters()
        var totals: DurableTotals<TurnstileApplication>?
        for batch in 0..<Self.batches {
            var entries: [LedgerEntry<TurnstileApplication>] = []
            for step in 0..<Self.coinsPerBatch {
                counters.coins += 1
                let time = MachineInstant(nanoseconds: Int64(batch * Self.coinsPerBatch + step + 1) * 1_000_000)
                entries.append(LedgerEntry(time: time, state: .unlocked, credit: counters.coins, counters: counters, cause: .edge(.coin, active: true)))
            }
            totals = try store.append(entries)
            publisher.committed(totals!)
        }
        publisher.finish(lastTotals: totals)

        let mark = try store.deliveryMark(of: "mqtt nodes/node2")
        #expect(mark.delivered == mark.newest, "the stop waited for every acknowledgement: \(mark)")
        let events = await log.first(within: Self.patience) { _ in
            log.all.compactMap(\.receivedMessage).filter { $0.topic == "nodes/node2/events" }.count >= Self.batches * Self.coinsPerBatch
        }
        #expect(events != nil, "\(log.all.compactMap(\.receivedMessage).filter { $0.topic == "nodes/node2/events" }.count) events reached the broker")
    }

    static let batches = 20
    static let coinsPerBatch = 10
}

