import ControllerFSM
import ControllerMQTT
import Dispatch

/// A broker in the process, for the site's tests, as the simulated chip is for GPIO: it keeps
/// what the site relies on of MQTT 3.1.1 and of mosquitto —
/// - retained messages (an empty retained payload removes one), sent to each new subscription;
/// - last wills, published when a connection ends other than by the client's `stop`;
/// - persistent sessions (`cleanSession = false`): a client's subscriptions are kept, and
///   messages of QoS 1 that arrive while it is away are delivered when it is back, up to
///   ``queuedPerSession`` of them (mosquitto's `max_queued_messages`);
/// - QoS 1 from the client: a message published while disconnected waits, and is sent and
///   acknowledged on reconnecting;
/// - an access list (``InMemoryBroker/allows``): a publication it refuses is acknowledged and
///   dropped, a subscription it refuses receives nothing, as mosquitto does;
/// - one connection per client id: a second connection with the same id ends the first
///   (a takeover), which tries again at ``retryWaiting()``;
/// - the broker going away and coming back (``goDown()``, ``comeUp()``), a connection dropped
///   (``drop(clientID:)``), each with the `disconnected` and `connected` events a real client
///   gives.
///
/// Events reach each connection's handler in order, on that connection's own queue, never from
/// inside a call the client made (``SiteTransport``). Order holds across connections as on
/// mosquitto: a message is queued to every subscriber before the next is taken, a
/// subscription's retained messages before anything published after it, so no answer reaches
/// a client before what it answers. ``settle()`` waits until every queue has
/// delivered what it holds.
package final class InMemoryBroker: Sendable {
    /// Whether `clientID` may publish on (`write`) or receive from (`!write`) `topic`.
    package typealias AccessList = @Sendable (_ clientID: String, _ topic: String, _ write: Bool) -> Bool

    // Guarded, not the standard library's Mutex: ThreadSanitizer sees its lock.
    private let state = Guarded(State())
    private let access: AccessList

    private struct State {
        var up = true
        var retained: [String: [UInt8]] = [:]
        var connections: [ObjectIdentifier: InMemoryConnection] = [:]
        /// Sessions of clients that asked for one (`cleanSession = false`), by client id.
        var sessions: [String: Session] = [:]
        /// The publications the broker accepted, in order, at most ``loggedPublications``
        /// (the oldest go first): what a test asks of the wire.
        var log: [MQTTMessage] = []
    }

    /// The publications ``published(on:)`` keeps: a long test's oldest are dropped, not its memory.
    package static let loggedPublications = 10_000
    /// The messages a persistent session holds for its absent client, as mosquitto's
    /// `max_queued_messages` (1000 by default): past it, new messages are dropped for that client.
    package static let queuedPerSession = 1_000

    /// A persistent session: the filters, and what waits for the client while it is away.
    struct Session {
        var filters: [String] = []
        var queued: [MQTTMessage] = []
    }

    /// - Parameter allows: The access list; by default everything is allowed.
    package init(allows: @escaping AccessList = { _, _, _ in true }) {
        access = allows
    }

    /// A site connector whose connections are to this broker.
    package var connector: SiteConnector {
        { [self] configuration, events throws(MQTTError) in
            InMemoryConnection(broker: self, configuration: configuration, events: events)
        }
    }

    /// The retained message on `topic`, if any.
    package func retained(_ topic: String) -> [UInt8]? {
        state.withLock { $0.retained[topic] }
    }

    /// Every publication the broker accepted on topics matching `filter`, oldest first.
    package func published(on filter: String) -> [MQTTMessage] {
        state.withLock { $0.log.filter { Self.matches(filter: filter, topic: $0.topic) } }
    }

    /// Publishes as a client outside the site would (a person's command, Home Assistant's
    /// birth message, another controller's claim).
    package func inject(topic: String, payload: [UInt8], retain: Bool = false) {
        accept(MQTTMessage(topic: topic, payload: payload, qos: .atLeastOnce, retained: false), retain: retain, from: nil)
    }

    /// The broker goes away: every connection ends with an error (its will published first, as
    /// the broker would on losing the client: none is, since the broker is gone) and attempts
    /// to connect fail until ``comeUp()``.
    package func goDown() {
        let connections = state.withLock { state -> [InMemoryConnection] in
            state.up = false
            return Array(state.connections.values)
        }
        for connection in connections { connection.lost(MQTTError.connectionLost(broker: connection.brokerName, reason: "the in-memory broker went down")) }
    }

    /// The broker is back: every started connection connects again.
    package func comeUp() {
        let waiting = state.withLock { state -> [InMemoryConnection] in
            state.up = true
            return Array(state.connections.values)
        }
        for connection in waiting { connection.retry() }
    }

    /// The back-off of every started connection that is not connected has passed: each tries
    /// again, once.
    package func retryWaiting() {
        let waiting = state.withLock { Array($0.connections.values) }
        for connection in waiting { connection.retry() }
    }

    /// The broker drops the connection of `clientID` (its will is published) and the client
    /// connects again, as libmosquitto's does.
    package func drop(clientID: String) {
        let dropped = state.withLock { $0.connections.values.filter { $0.configuration.clientID == clientID && $0.isConnected } }
        for connection in dropped {
            connection.lost(MQTTError.connectionLost(broker: connection.brokerName, reason: "dropped by the in-memory broker"))
            connection.retry()
        }
    }

    /// Waits until every connection has delivered the events it holds.
    package func settle() {
        let connections = state.withLock { Array($0.connections.values) }
        for connection in connections { connection.drain() }
    }

    // MARK: - What connections ask

    /// Connects `connection`: false when the broker is down. A live connection with the same
    /// client id is taken over (ended with an error; its will published).
    /// Accepted, the connection is connected, told so and given what its session kept, while
    /// the state is held: a message published meanwhile neither falls between the session's
    /// queue and the connection nor overtakes what waited.
    func connect(_ connection: InMemoryConnection) -> Bool {
        let id = connection.configuration.clientID
        let (accepted, takenOver) = state.withLock { state -> (Bool, [InMemoryConnection]) in
            state.connections[ObjectIdentifier(connection)] = connection
            guard state.up else { return (false, []) }
            let takenOver = state.connections.values.filter { $0 !== connection && $0.configuration.clientID == id && $0.isConnected }
            var present = false
            var queued: [MQTTMessage] = []
            if connection.configuration.cleanSession {
                state.sessions[id] = nil
            } else if var session = state.sessions[id] {
                present = true
                queued = session.queued
                session.queued = []
                state.sessions[id] = session
            } else {
                state.sessions[id] = Session()
            }
            connection.becameConnected(sessionPresent: present, filters: present ? state.sessions[id]?.filters ?? [] : [], queued: queued)
            // The client's subscriptions again, in effect before anything it publishes once told
            // it is connected: libmosquitto's client sends them before it says so (a publish that
            // overtook them missed its own retained claim, overwritten meanwhile by another's).
            for (filter, subscription) in connection.resubscriptions() {
                putInEffect(filter, for: connection, acknowledging: subscription, in: &state)
            }
            return (true, takenOver)
        }
        // The one taken over tries again after its back-off, as libmosquitto's client does: here
        // when the test says the back-off has passed (``retryWaiting()``), so two clients of one
        // id take turns one step at a time instead of at once for ever.
        for other in takenOver {
            other.lost(MQTTError.connectionLost(broker: other.brokerName, reason: "another client connected with client id \(id)"))
        }
        return accepted
    }

    /// `connection` subscribed to `filter` (acknowledged as `subscription`): from now on it
    /// receives what is published there, after the acknowledgement and the retained messages it
    /// may read — all handed over while the state is held, so no message published meanwhile
    /// comes before them (a stale retained claim after a fresh one).
    func subscribe(_ connection: InMemoryConnection, to filter: String, subscription: MQTTMessageID) {
        state.withLock { putInEffect(filter, for: connection, acknowledging: subscription, in: &$0) }
    }

    private func putInEffect(_ filter: String, for connection: InMemoryConnection, acknowledging subscription: MQTTMessageID,
                                    in state: inout State) {
        let id = connection.configuration.clientID
        if !connection.configuration.cleanSession, !(state.sessions[id]?.filters.contains(filter) ?? true) {
            state.sessions[id]?.filters.append(filter)
        }
        connection.addFilter(filter)
        connection.deliver(.subscribed(subscription, granted: [.atLeastOnce]))
        for (topic, payload) in state.retained.sorted(by: { $0.key < $1.key })
        where Self.matches(filter: filter, topic: topic) && access(id, topic, false) {
            connection.deliver(.message(MQTTMessage(topic: topic, payload: payload, qos: .atLeastOnce, retained: true)))
        }
    }

    /// `connection` published `message`: kept if retained, delivered to every subscription
    /// the access list lets read it. False when the access list refused it (it is dropped).
    @discardableResult
    func accept(_ message: MQTTMessage, retain: Bool, from connection: InMemoryConnection?) -> Bool {
        if let connection, !access(connection.configuration.clientID, message.topic, true) { return false }
        // Handed to each receiver's queue while the state is held, as mosquitto queues a message
        // to every subscriber before it reads the next: a receiver's answer to it can then never
        // reach another receiver before it does (a node's reasserted claim overtaking the other
        // node's own claim, which made that node take it for a claim found at connecting).
        state.withLock { state in
            if state.log.count == Self.loggedPublications { state.log.removeFirst(Self.loggedPublications / 10) }
            state.log.append(message)
            if retain {
                state.retained[message.topic] = message.payload.isEmpty ? nil : message.payload
            }
            var reached: Set<String> = []
            for receiver in state.connections.values where receiver.isConnected {
                let id = receiver.configuration.clientID
                guard receiver.filters.contains(where: { Self.matches(filter: $0, topic: message.topic) }), access(id, message.topic, false) else { continue }
                reached.insert(id)
                receiver.deliver(.message(message))
            }
            // Away with a session: QoS 1 waits for the client.
            for (id, session) in state.sessions where !reached.contains(id) {
                guard session.filters.contains(where: { Self.matches(filter: $0, topic: message.topic) }), access(id, message.topic, false),
                      session.queued.count < Self.queuedPerSession else { continue }
                state.sessions[id]?.queued.append(message)
            }
        }
        return true
    }

    /// `connection` ended other than by `stop`: its will.
    func ended(_ connection: InMemoryConnection) {
        guard let will = connection.configuration.will, state.withLock({ $0.up }) else { return }
        accept(MQTTMessage(topic: will.topic, payload: will.payload, qos: will.qos, retained: false), retain: will.retain, from: nil)
    }

    /// `connection` stopped: it is forgotten (its session stays, if it has one).
    func forget(_ connection: InMemoryConnection) {
        state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// MQTT's topic filter: `+` one level, `#` the rest (this level and below).
    package static func matches(filter: String, topic: String) -> Bool {
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in filterLevels.enumerated() {
            if level == "#" { return true }
            guard index < topicLevels.count else { return false }
            if level != "+" && level != topicLevels[index] { return false }
        }
        return filterLevels.count == topicLevels.count
    }
}

/// A client's connection to an ``InMemoryBroker``.
final class InMemoryConnection: SiteTransport {
    let configuration: MQTTConfiguration
    /// Weak: the broker holds its connections, and a connection a test never stops must not
    /// keep the broker (and itself) alive.
    private weak let broker: InMemoryBroker?
    private let events: @Sendable (MQTTEvent) -> Void
    /// Events are handed to the handler here, in order, never inside the client's own call.
    private let queue = DispatchQueue(label: "in-memory-mqtt")
    // Guarded, not the standard library's Mutex: ThreadSanitizer sees its lock.
    private let state = Guarded(State())

    private struct State {
        var started = false
        var stopped = false
        var connected = false
        /// The subscriptions the client asked for, made again at every connection.
        var wanted: [String] = []
        /// The subscriptions in effect on this connection (the broker's subscribe puts each).
        var filters: [String] = []
        var nextID: Int32 = 1
        /// QoS 1 messages published while disconnected: sent on reconnecting.
        var waiting: [(MQTTMessageID, MQTTMessage, Bool)] = []
    }

    init(broker: InMemoryBroker, configuration: MQTTConfiguration, events: @escaping @Sendable (MQTTEvent) -> Void) {
        self.broker = broker
        self.configuration = configuration
        self.events = events
    }

    var brokerName: String { configuration.broker.description }
    var isConnected: Bool { state.withLock { $0.connected } }
    var filters: [String] { state.withLock { $0.filters } }

    func subscribe(_ filter: String, qos: MQTTQoS) throws(MQTTError) -> MQTTMessageID? {
        let (connected, id) = state.withLock { state -> (Bool, MQTTMessageID) in
            // Kept for the next connection; in effect on this one from the broker's subscribe.
            if !state.wanted.contains(filter) { state.wanted.append(filter) }
            return (state.connected, Self.take(&state.nextID))
        }
        guard connected, let broker else { return nil }
        broker.subscribe(self, to: filter, subscription: id)
        return id
    }

    func start() throws(MQTTError) {
        try state.withLock { state throws(MQTTError) in
            guard !state.stopped else { throw MQTTError.stopped }
            guard !state.started else { throw MQTTError.alreadyStarted }
            state.started = true
        }
        retry()
    }

    func publish(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool) throws(MQTTError) -> MQTTMessageID {
        let message = MQTTMessage(topic: topic, payload: payload, qos: qos, retained: false)
        let (connected, id) = try state.withLock { state throws(MQTTError) -> (Bool, MQTTMessageID) in
            guard state.started, !state.stopped else { throw MQTTError.notStarted }
            let id = Self.take(&state.nextID)
            if !state.connected && qos != .atMostOnce { state.waiting.append((id, message, retain)) }
            return (state.connected, id)
        }
        if connected, let broker {
            broker.accept(message, retain: retain, from: self)
            deliver(.published(id))
        }
        return id
    }

    func stop() {
        state.withLock { state in
            state.stopped = true
            state.connected = false
        }
        broker?.forget(self)
        // Not waited for: the handler may call `stop` from the queue itself.
        deliver(.disconnected(nil))
    }

    // MARK: - What the broker does to it

    /// Connects if started and not stopped; on success, the subscriptions again, what waited
    /// on either side, and their acknowledgements.
    func retry() {
        guard let broker, state.withLock({ $0.started && !$0.stopped && !$0.connected }) else { return }
        guard broker.connect(self) else {
            deliver(.connectFailed(MQTTError.connectionFailed(broker: brokerName, reason: "the in-memory broker is down"), retryIn: .seconds(1)))
            return
        }
        let waiting = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        for (id, message, retain) in waiting {
            broker.accept(message, retain: retain, from: self)
            deliver(.published(id))
        }
    }

    /// The connection ended with `error`: the will is published.
    func lost(_ error: MQTTError) {
        let was = state.withLock { state -> Bool in
            defer { state.connected = false }
            return state.connected
        }
        guard was else { return }
        deliver(.disconnected(error))
        broker?.ended(self)
    }

    func deliver(_ event: MQTTEvent) {
        queue.async { [events] in events(event) }
    }

    /// The broker accepted the connection (called with its state held): connected from now on,
    /// with its session's subscriptions in effect (none for a clean one: the wanted ones
    /// follow), told so first, then given what its session kept.
    func becameConnected(sessionPresent: Bool, filters: [String], queued: [MQTTMessage]) {
        state.withLock { state in
            state.connected = true
            state.filters = filters
        }
        deliver(.connected(sessionPresent: sessionPresent))
        for message in queued { deliver(.message(message)) }
    }

    /// The subscriptions to make again on a new connection, each with its SUBSCRIBE's identifier
    /// (called by the broker with its state held).
    func resubscriptions() -> [(String, MQTTMessageID)] {
        state.withLock { state in state.wanted.map { ($0, Self.take(&state.nextID)) } }
    }

    /// The broker put `filter` in effect (called with its state held).
    func addFilter(_ filter: String) {
        state.withLock { state in
            if !state.filters.contains(filter) { state.filters.append(filter) }
        }
    }

    /// Waits until every event handed to the queue so far has been delivered.
    func drain() {
        queue.sync {}
    }

    private static func take(_ next: inout Int32) -> MQTTMessageID {
        defer { next = next == Int32(UInt16.max) ? 1 : next + 1 }
        return MQTTMessageID(next)
    }
}
