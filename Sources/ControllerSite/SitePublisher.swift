import ControllerDaemon
import ControllerFSM
import ControllerHost
import ControllerMQTT
import ControllerStore
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The bounds of a node's publishing.
package enum SiteLimits {
    /// Events handed to the MQTT client and not yet acknowledged, at most: under the client's
    /// own cap (``MQTTLimits/maxUnacknowledgedMessages``), so the state, the counters and the
    /// replies to commands always have room.
    package static let eventWindow = 500
    /// Events read from the store at a time.
    package static let readBatch = 200
    /// The outbox's depth (status, metrics, the health message) is counted at most this often,
    /// and this long at most after a commit or an acknowledgement changed it: a count is a
    /// query of the store, and a busy controller commits fifty times a second. Nothing is
    /// counted while nothing changes.
    package static let depthRecountInterval: Duration = .seconds(1)
    /// Commands waiting for the publisher's thread; one more is dropped and counted.
    package static let commandQueue = 64
    /// At the stop, how long the broker has to acknowledge what is in flight.
    package static let drainPatience: Duration = .seconds(2)
    /// A claim on the node found retained at the first connection (another process's: this
    /// one's last run, or a live controller on the same node): events wait this long for the
    /// other to show itself, longer than a reconnection's first wait (1 s and a quarter).
    package static let claimSettle: Duration = .seconds(3)
    /// How long events wait for the node's own claim to come back from the broker before they
    /// go without it (an ACL that does not let the node read or write `PREFIX/NODE/claim`).
    package static let claimPatience: Duration = .seconds(5)
    /// A connection the broker closes within this of accepting it counts as a quick
    /// disconnect; this many within ``takeoverWindow`` is the pattern of a client-id takeover.
    package static let quickDisconnect: Duration = .seconds(5)
    package static let takeoverCount = 3
    package static let takeoverWindow: Duration = .seconds(60)
}

/// Publishes a node's counted events from the store's outbox (the events after the node's
/// delivery mark) at QoS 1, in order, moving the mark only over events the broker has
/// acknowledged; keeps the retained availability, state and counters current; and answers the
/// commands the broker brings, as `ctl` requests.
///
/// It runs on a thread of its own ("mqtt-outbox"), woken by the store's commits, the client's
/// acknowledgements and commands, and status' changes (``StatusChanges``: the health and inputs
/// messages); it sleeps without a timeout while none comes, but for the claim's waits and the
/// depth's next count (``SiteLimits/depthRecountInterval``) when one is due. The event loop
/// never calls it: the events reach it through the store, so the loop's path from edge to
/// relay is the same with or without a broker.
///
/// Nothing is lost, nothing reordered: an event leaves the outbox only when the broker has
/// acknowledged it and every event before it. Whatever was in flight at a crash, a kill or a
/// stop that found the broker away is published again by the next start, marked `replayed`;
/// consumers keep the first of each (node, sequence).
///
/// One node id, one controller: at every connection the publisher publishes a retained claim
/// (`PREFIX/NODE/claim`: a random instance id, the host, the pid, the start) and watches the
/// topic. A claim of another instance arriving after its own came back means a second live
/// controller publishes as the node (whose events would share its sequence numbers): both say so
/// in the log, `/status` (`site.conflict`) and `/metrics` (`mqtt_node_conflict`); the one that
/// started later stops publishing (its events stay in its outbox), and the other publishes its
/// claim again once so the later one learns of it. A claim left by an earlier run is not a
/// conflict: events wait ``SiteLimits/claimSettle`` for its owner to show itself, or not at all
/// when it was a process of this host that is gone. Repeated
/// disconnects right after connecting (the broker handing the client id to another client) are
/// counted and logged as well.
package final class SitePublisher<App: ControllerApplication>: @unchecked Sendable {
    // Safety: `client` is set once in `start`, before the thread and the client's own start;
    // the thread's own state (`cursor`, `delivered`, …) is touched by that thread only (and by
    // `finish` after it has ended); the rest is in `shared`.
    package let topics: SiteTopics
    private let discovery: SiteDiscovery<App>?
    private let store: CountStore<App>
    private let consumer: String
    private let logger: Logger
    private let answer: (ControlRequest<App>) -> ControlReply
    /// Status and metrics hear where publishing stands.
    private let status: StatusHub<App>
    private var client: (any SiteTransport)?
    private let doorbell = Doorbell()
    private let shared: Guarded<Shared>
    private let ended = Doorbell()
    /// This process's claim on the node.
    package let claim: SitePayload.Claim

    private struct Shared {
        var connected = false
        /// Connected again: availability, state and counters are published anew.
        var announce = false
        /// Home Assistant came online: it wants the discovery messages again.
        var rediscover = false
        var inFlight: [MQTTMessageID: Int64] = [:]
        /// Availability, state, counters, discovery and replies not yet acknowledged: the stop
        /// waits for them too, so the retained counters a stopped node leaves are its last.
        var controlInFlight: Set<MQTTMessageID> = []
        /// Sequences handed to the client, oldest first, from `head`.
        var published: [Int64] = []
        /// The last sequence handed to the client: the thread's `cursor`, for `finish` to read
        /// while the thread still runs (the cursor itself is the thread's alone).
        var handedUpTo: Int64 = 0
        var head = 0
        var acknowledged: Set<Int64> = []
        var totals: DurableTotals<App>?
        var totalsChanged = false
        var commands: [MQTTMessage] = []
        var droppedCommands = 0
        var stopping = false
        var threadEnded = false
        var work = false
        /// The offline message published at the stop, until acknowledged.
        var farewell: MQTTMessageID?
        var farewellAcknowledged = false
        /// For status and metrics.
        var depth = 0
        var deliveredMark: Int64 = 0
        /// The node's claim: whether events may go, whether another holds the node.
        var node: NodeClaim
    }

    // The thread's own.
    private var cursor: Int64 = 0
    private var delivered: Int64 = 0
    /// Events up to this one were in the store before this run published anything.
    private var startNewest: Int64 = 0
    private var lastState: [UInt8] = []
    private var lastCounters: [UInt8] = []
    private var lastHealth: [UInt8] = []
    private var lastInputs: [UInt8] = []
    /// Totals to publish once the node's claim allows (retained state and counters of a
    /// controller that turns out to be the second on the node would overwrite the first's:
    /// Home Assistant's `total_increasing` sensors would see a reset).
    private var pendingTotals: DurableTotals<App>?

    /// - Parameters:
    ///   - discovery: Home Assistant's discovery messages to publish, or nil for none.
    ///   - answer: answers a command as the control socket would.
    package init(
        store: CountStore<App>, topics: SiteTopics, discovery: SiteDiscovery<App>?, status: StatusHub<App>, logger: Logger,
        answer: @escaping (ControlRequest<App>) -> ControlReply
    ) {
        self.status = status
        self.store = store
        self.topics = topics
        self.discovery = discovery
        // The mark belongs to the node's topics, not to one broker's address: a site that
        // moves its broker gets the events from where the old one left off.
        consumer = "mqtt \(topics.prefix)/\(topics.node)"
        self.logger = logger
        self.answer = answer
        var random = SystemRandomNumberGenerator()
        let instance = SiteIdentity.hex(random.next()) + SiteIdentity.hex(random.next())
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        claim = SitePayload.Claim(
            instance: instance, host: SiteIdentity.hostName(), pid: Int64(getpid()),
            since: Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec), app: App.name)
        shared = Guarded(Shared(node: NodeClaim(own: claim)))
    }

    /// Reads the delivery mark, makes the client and starts both threads. The broker may be
    /// away: the client keeps trying, and the outbox waits.
    ///
    /// - Parameter connect: Makes the connection: libmosquitto's client, or the in-memory
    ///   broker's in tests.
    package func start(configuration: MQTTConfiguration, connect: SiteConnector = MQTTClient.connector) throws {
        let mark = try store.deliveryMark(of: consumer)
        delivered = mark.delivered
        cursor = mark.delivered
        shared.withLock { $0.handedUpTo = mark.delivered }
        startNewest = mark.newest
        // Both come from the file (a hand edit may leave a negative id): the depth saturates and
        // is never below 0, so no stored value can trap here.
        let waiting = max(0, mark.newest.saturatingSubtracting(mark.delivered))
        if waiting > 0 {
            logger.notice("MQTT: \(waiting) event(s) up to sequence \(mark.newest) wait in the outbox from before; they are published again, marked replayed")
        }
        let client = try connect(configuration) { [weak self] event in self?.handle(event) }
        self.client = client
        shared.withLock { $0.deliveredMark = mark.delivered; $0.depth = Int(waiting) }
        publishStatus()
        _ = try client.subscribe(topics.claim, qos: .atLeastOnce)
        _ = try client.subscribe(topics.command, qos: .atLeastOnce)
        _ = try client.subscribe(topics.siteCommand, qos: .atLeastOnce)
        if let discovery { _ = try client.subscribe(discovery.statusTopic, qos: .atLeastOnce) }
        status.changes.watch(with: doorbell)
        DetachedThread.start(name: "mqtt-outbox") { [self] in run() }
        try client.start()
    }

    /// The store committed: the outbox has new events, and the totals may have changed.
    package func committed(_ totals: DurableTotals<App>) {
        shared.withLock {
            $0.totals = totals
            $0.totalsChanged = true
            $0.work = true
        }
        doorbell.ringAlways()
    }

    /// Where publishing stands, for status and metrics.
    package var progress: (connected: Bool, depth: Int, delivered: Int64) {
        shared.withLock { ($0.connected, $0.depth, $0.deliveredMark) }
    }

    private func publishStatus() {
        let (connected, depth, delivered, conflict, quick) = shared.withLock {
            ($0.connected, $0.depth, $0.deliveredMark, $0.node.conflict, $0.node.quickDisconnectCount)
        }
        status.publishSite(SiteSnapshot(
            broker: broker, node: topics.node, connected: connected, outboxDepth: depth, deliveredSequence: delivered,
            instance: claim.instance, conflict: conflict, quickDisconnects: quick))
    }

    private var broker: String { client?.configuration.broker.description ?? "the broker" }

    /// A claim on the node's topic, on the client's thread.
    private func claimed(_ message: MQTTMessage) {
        guard let other = SitePayload.Claim.decode(message.payload) else {
            if !message.payload.isEmpty { logger.warning("MQTT: a claim on \(topics.claim) that is not one was ignored") }
            return
        }
        let now = ContinuousClock.now
        let outcome = shared.withLock { shared -> NodeClaim.Outcome in
            let outcome = shared.node.received(other, at: now) { Self.isGone($0, besides: claim) }
            switch outcome {
            case .own: shared.work = true
            case .gone, .earlier: break
            case .conflict(let yield, _):
                if yield { shared.connected = false }
                shared.work = true
            }
            return outcome
        }
        switch outcome {
        case .own: break
        case .gone:
            logger.info("MQTT: \(topics.claim) names instance \(other.instance), an earlier run on this host (pid \(other.pid), gone)")
        case .earlier:
            logger.info("MQTT: \(topics.claim) names instance \(other.instance) on \(other.host) (pid \(other.pid)); events wait up to \(SiteLimits.claimSettle) for it to show itself")
        case .conflict(let yield, let first):
            let who = "another controller uses node '\(topics.node)' on \(broker): instance \(other.instance) of \(other.app) on host \(other.host) (pid \(other.pid))"
            if yield {
                logger.error("MQTT: \(who), started before this one. This daemon stops publishing to the broker: its events wait in the outbox of \(store.path). Give each controller its own --mqtt-node, then restart this one.")
                client?.stop()
            } else if first {
                logger.error("MQTT: \(who), started after this one; it stops publishing and this one goes on. Give each controller its own --mqtt-node.")
            }
        }
        publishStatus()
    }

    /// Whether `other` was made on this host by a process that no longer exists.
    private static func isGone(_ other: SitePayload.Claim, besides own: SitePayload.Claim) -> Bool {
        guard other.host == SiteIdentity.escaped(own.host.prefix(64), keeping: SiteIdentity.isWordByte),
            other.pid > 0, other.pid != own.pid, let pid = pid_t(exactly: other.pid)
        else { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Whether events may go out: the node's claim is on the broker (or never came back, said
    /// once), no other claim found at connecting is still settling, and no other holds the node.
    private func claimAllowsEvents() -> Bool {
        let now = ContinuousClock.now
        let (allowed, warn) = shared.withLock { $0.node.allowsEvents(at: now) }
        if warn {
            logger.warning("MQTT: this node's claim on \(topics.claim) never came back from \(broker) (does the ACL let the node read and write it?); events go out without it, and a second controller on node '\(topics.node)' would not be noticed")
        }
        return allowed
    }

    // MARK: - The client's thread

    private func handle(_ event: MQTTEvent) {
        switch event {
        case .connected(let sessionPresent):
            let now = ContinuousClock.now
            let taken = shared.withLock { shared -> Bool in
                guard shared.node.connected(at: now) else { return false }
                shared.connected = true
                shared.announce = true
                shared.work = true
                return true
            }
            guard taken else { return }
            logger.notice("MQTT: connected to \(broker)\(sessionPresent ? " (session kept)" : "")")
            publishStatus()
        case .connectFailed(let error, let retryIn):
            logger.warning("MQTT: \(error); trying again in \(retryIn)")
        case .disconnected(let error):
            // libmosquitto sends what it holds again on reconnecting; the retained messages are
            // published anew then anyway.
            let now = ContinuousClock.now
            let takeovers = shared.withLock { shared -> Int? in
                shared.connected = false
                shared.controlInFlight.removeAll()
                return shared.node.disconnected(unexpectedly: error != nil, at: now)
            }
            publishStatus()
            if let error { logger.warning("MQTT: \(error); unacknowledged events are sent again on reconnecting") }
            if let takeovers, takeovers >= SiteLimits.takeoverCount {
                logger.error("MQTT: \(broker) closed this connection within \(SiteLimits.quickDisconnect) of accepting it \(takeovers) times in \(SiteLimits.takeoverWindow): another client probably uses client id \(client?.configuration.clientID ?? "") (the same --mqtt-node on another controller?)")
            }
        case .published(let id):
            shared.withLock { shared in
                if let sequence = shared.inFlight.removeValue(forKey: id) {
                    shared.acknowledged.insert(sequence)
                    shared.work = true
                } else if shared.controlInFlight.remove(id) != nil {
                    return
                } else if id == shared.farewell {
                    shared.farewellAcknowledged = true
                }
            }
        case .subscribed: return
        case .message(let message) where message.topic == topics.claim:
            claimed(message)
        case .message(let message) where message.topic == discovery?.statusTopic:
            guard message.payload == Array(SiteDiscovery<App>.birthPayload.utf8) else { return }
            shared.withLock { $0.rediscover = true; $0.work = true }
        case .message(let message):
            guard message.topic == topics.command || message.topic == topics.siteCommand else { return }
            let taken = shared.withLock { shared -> Bool in
                guard shared.commands.count < SiteLimits.commandQueue else {
                    shared.droppedCommands += 1
                    return false
                }
                shared.commands.append(message)
                shared.work = true
                return true
            }
            if !taken { logger.warning("MQTT: a command on \(message.topic) was dropped: \(SiteLimits.commandQueue) wait already") }
        }
        doorbell.ringAlways()
    }

    // MARK: - The publisher's thread

    private func run() {
        var lastDepthCount: ContinuousClock.Instant?
        // Whether a commit or an acknowledgement may have changed the depth since its count.
        var depthStale = true
        // Status' changes acted on; nil: none yet, so the first turn looks at everything.
        var statusSeen: UInt64?
        var eventsAllowed = false
        while true {
            let seen = statusSeen
            doorbell.sleep(nanoseconds: nextTimedWake(depthStale: depthStale, lastDepthCount: lastDepthCount)) {
                shared.withLock { $0.work || $0.stopping } || status.changes.count != seen
            }
            let changes = status.changes.count
            let statusChanged = changes != statusSeen
            statusSeen = changes
            let (stopping, announce, rediscover, totals, commands, reassert, yielded, worked) = shared.withLock { shared in
                defer {
                    shared.work = false
                    shared.announce = false
                    shared.rediscover = false
                    shared.totalsChanged = false
                    shared.commands.removeAll(keepingCapacity: true)
                }
                return (
                    shared.stopping, shared.announce, shared.rediscover, shared.totalsChanged || shared.announce ? shared.totals : nil,
                    shared.commands, shared.node.takeReassert(), shared.node.yielded, shared.work
                )
            }
            if worked { depthStale = true }
            if yielded {
                if stopping { break }
                continue
            }
            if announce || reassert { publishControl(topics.claim, SitePayload.encode(claim), retain: true) }
            if announce || rediscover, let discovery {
                for message in discovery.messages { publishControl(message.topic, message.payload, retain: true) }
            }
            if announce {
                lastState = []
                lastCounters = []
                lastHealth = []
                lastInputs = []
                publishControl(topics.availability, Array(SitePayload.online.utf8), retain: true)
            }
            if let totals { pendingTotals = totals }
            if let totals = pendingTotals, claimAllowsEvents() {
                publishTotals(totals)
                pendingTotals = nil
            }
            for command in commands { reply(to: command) }
            if claimAllowsEvents() { publishInputs() }
            publishEvents()
            recordDeliveries()
            let now = ContinuousClock.now
            var counted = false
            if depthStale, lastDepthCount.map({ now - $0 >= SiteLimits.depthRecountInterval }) ?? true {
                lastDepthCount = now
                depthStale = false
                counted = true
                let depth = (try? store.eventCount(after: delivered)) ?? 0
                shared.withLock { $0.depth = depth }
                publishStatus()
            }
            // Health says status' problems and the depth: told when either changed, on a new
            // connection, and when the claim first lets messages go.
            let allowed = claimAllowsEvents()
            if allowed && (counted || statusChanged || announce || !eventsAllowed) { publishHealth(depth: shared.withLock { $0.depth }) }
            eventsAllowed = allowed
            if stopping { break }
        }
        shared.withLock { $0.threadEnded = true }
        ended.ringAlways()
    }

    /// How long the publisher's thread may sleep when nothing wakes it, in nanoseconds: until the
    /// depth's next count is due (after a change, ``SiteLimits/depthRecountInterval`` from the
    /// last), or the claim's rules let events go by themselves (another instance's claim
    /// settled, or this one's own never came back); nil, no timeout, when neither waits.
    private func nextTimedWake(depthStale: Bool, lastDepthCount: ContinuousClock.Instant?) -> Int64? {
        let now = ContinuousClock.now
        var due: ContinuousClock.Instant?
        if depthStale, let lastDepthCount { due = lastDepthCount + SiteLimits.depthRecountInterval }
        let claimDue = shared.withLock { $0.node.nextDue }
        if let claimDue, claimDue > now { due = due.map { min($0, claimDue) } ?? claimDue }
        guard let due else { return nil }
        let (seconds, attoseconds) = max(due - now, .zero).components
        // Rounded up: a wake a fraction of a nanosecond early would find it not yet due.
        return seconds * 1_000_000_000 + (attoseconds + 999_999_999) / 1_000_000_000
    }

    /// Hands the client the outbox's next events, up to the window.
    private func publishEvents() {
        guard let client, claimAllowsEvents() else { return }
        while true {
            let room = SiteLimits.eventWindow - shared.withLock { $0.inFlight.count }
            guard room > 0 else { return }
            let events: [OutboxEvent]
            do {
                events = try store.events(after: cursor, limit: min(room, SiteLimits.readBatch))
            } catch {
                logger.error("MQTT: \(error); the outbox is read again shortly")
                return
            }
            guard let first = events.first else { return }
            // `first.sequence > cursor` (the store's `id > ?`), so neither side can overflow.
            if first.sequence - 1 > cursor {
                // Retention deleted them before any broker took them (a long outage).
                logger.warning("MQTT: events \(cursor + 1) to \(first.sequence - 1) were deleted by the store's retention before the broker acknowledged them; their counts are in the totals")
                // One entry stands for the whole gap (sequences only grow): the mark moves over
                // it once every event before it is acknowledged, however many the gap holds.
                shared.withLock { shared in
                    shared.published.append(first.sequence - 1)
                    shared.acknowledged.insert(first.sequence - 1)
                }
            }
            for event in events {
                let payload = SitePayload.event(event, node: topics.node, replayed: event.sequence <= startNewest)
                // One lock around the publish and its record: the acknowledgement can come first.
                let handed = shared.withLock { shared -> Bool in
                    do {
                        let id = try client.publish(topic: topics.events, payload: payload, qos: .atLeastOnce, retain: false)
                        shared.inFlight[id] = event.sequence
                        shared.published.append(event.sequence)
                        shared.handedUpTo = event.sequence
                        return true
                    } catch {
                        return false
                    }
                }
                guard handed else { return }
                cursor = event.sequence
            }
        }
    }

    /// Moves the delivery mark over every event acknowledged with all before it.
    private func recordDeliveries() {
        let mark = shared.withLock { shared -> Int64 in
            var mark = delivered
            while shared.head < shared.published.count, shared.acknowledged.remove(shared.published[shared.head]) != nil {
                mark = shared.published[shared.head]
                shared.head += 1
            }
            if shared.head > 4_096 {
                shared.published.removeFirst(shared.head)
                shared.head = 0
            }
            return mark
        }
        guard mark > delivered else { return }
        do {
            try store.markDelivered(upTo: mark, consumer: consumer)
            delivered = mark
            shared.withLock { $0.deliveredMark = mark }
        } catch {
            // The events stay delivered at the broker; a restart now would publish them again
            // (replayed), which consumers drop.
            logger.error("MQTT: \(error); tried again with the next acknowledgement")
        }
    }

    private func publishTotals(_ totals: DurableTotals<App>) {
        let state = SitePayload.state(totals, node: topics.node, app: App.self)
        if state != lastState, publishControl(topics.state, state, retain: true) { lastState = state }
        let counters = SitePayload.counters(totals, node: topics.node, app: App.self)
        if counters != lastCounters, publishControl(topics.counters, counters, retain: true) { lastCounters = counters }
    }

    /// The inputs message, when a level changed (looked at on every wake: after each commit, and
    /// when status notes a change, which a level's is).
    private func publishInputs() {
        let levels = status.inputLevels
        guard !levels.isEmpty else { return }
        let inputs = SitePayload.encode(SitePayload.Inputs(node: topics.node, app: App.name, levels: levels))
        if inputs != lastInputs, publishControl(topics.inputs, inputs, retain: true) { lastInputs = inputs }
    }

    /// The health message, when it says something new.
    private func publishHealth(depth: Int) {
        let snapshot = status.snapshot()
        let faults = Set(App.homeAssistant.faultStates.map(\.name))
        let health = SitePayload.encode(SitePayload.Health(
            node: topics.node, app: App.name, phase: snapshot.phase, outbox: depth, problems: snapshot.problems(faultStates: faults),
            started: claim.since))
        if health != lastHealth, publishControl(topics.health, health, retain: true) { lastHealth = health }
    }

    /// A message that is not an event: published only while connected (it is sent again on
    /// the next connection anyway), so an outage does not queue stale ones.
    @discardableResult
    private func publishControl(_ topic: String, _ payload: [UInt8], retain: Bool) -> Bool {
        guard let client else { return false }
        let outcome = shared.withLock { shared -> Result<Bool, MQTTError> in
            guard shared.connected else { return .success(false) }
            do throws(MQTTError) {
                shared.controlInFlight.insert(try client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain))
                return .success(true)
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let sent): return sent
        case .failure(let error):
            logger.warning("MQTT: \(topic): \(error)")
            return false
        }
    }

    /// Answers a command as `ctl` would, on the result topic. `events` streams only on the
    /// control socket.
    private func reply(to message: MQTTMessage) {
        let answered = ControlRequestLine<App>.answer(message.payload) { request in
            if case .events = request {
                return .failure(ControlFailure(
                    code: "not_over_mqtt", message: "events are published on \(topics.events); subscribe to it"))
            }
            return answer(request)
        }
        var payload = answered.reply.encoded(daemon: App.daemonName)
        if payload.last == UInt8(ascii: "\n") { payload.removeLast() }
        if answered.malformed { logger.warning("MQTT: a malformed command on \(message.topic) was answered with an error") }
        publishControl(topics.result, payload, retain: false)
    }

    // MARK: - The stop

    /// At the stop (after the store's last commit): publishes what is left in the outbox and
    /// waits up to ``SiteLimits/drainPatience`` for the broker's acknowledgements, says
    /// `offline`, and disconnects. What the broker did not acknowledge stays in the outbox for
    /// the next start.
    package func finish(lastTotals: DurableTotals<App>?) {
        guard let client else { return }
        if shared.withLock({ $0.node.yielded }) {
            // The node is another controller's: no farewell (its availability is not ours).
            shared.withLock { $0.stopping = true; $0.work = true }
            doorbell.ringAlways()
            while !shared.withLock({ $0.threadEnded }) { ended.sleep(nanoseconds: 100_000_000) { shared.withLock { $0.threadEnded } } }
            client.stop()
            let left = (try? store.eventCount(after: delivered)) ?? 0
            logger.warning("MQTT: node '\(topics.node)' is another controller's on \(broker); \(left) event(s) stay in the outbox of \(store.path)")
            return
        }
        if let lastTotals { committed(lastTotals) }
        let deadline = ContinuousClock.now + SiteLimits.drainPatience
        while ContinuousClock.now < deadline {
            let (settled, handedUpTo) = shared.withLock {
                ($0.connected && $0.inFlight.isEmpty && $0.controlInFlight.isEmpty && !$0.work, $0.handedUpTo)
            }
            let depthUnknownOrEmpty = (try? store.eventCount(after: handedUpTo)) == 0
            if settled && depthUnknownOrEmpty { break }
            ended.sleep(nanoseconds: 20_000_000) { false }
        }
        shared.withLock { $0.stopping = true; $0.work = true }
        doorbell.ringAlways()
        while !shared.withLock({ $0.threadEnded }) { ended.sleep(nanoseconds: 100_000_000) { shared.withLock { $0.threadEnded } } }
        if shared.withLock({ $0.connected }) {
            // The last word on health says what the stop leaves in the outbox, so the site
            // page shows it beside the node's `offline`.
            publishHealth(depth: (try? store.eventCount(after: delivered)) ?? 0)
            let id = shared.withLock { shared -> MQTTMessageID? in
                shared.farewell = try? client.publish(topic: topics.availability, payload: Array(SitePayload.offline.utf8), qos: .atLeastOnce, retain: true)
                return shared.farewell
            }
            let farewellDeadline = ContinuousClock.now + .seconds(1)
            while id != nil, !shared.withLock({ $0.farewellAcknowledged }), ContinuousClock.now < farewellDeadline {
                ended.sleep(nanoseconds: 10_000_000) { false }
            }
        }
        client.stop()
        let left = (try? store.eventCount(after: delivered)) ?? 0
        if left > 0 {
            logger.warning("MQTT: \(left) event(s) the broker has not acknowledged stay in the outbox of \(store.path); the next start publishes them, marked replayed")
        }
    }
}
