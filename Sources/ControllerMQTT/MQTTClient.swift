import CMosquitto
import ControllerFSM

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An MQTT 3.1.1 client over libmosquitto (opened at run time): one connection to one broker,
/// kept up on a thread of its own, with a persistent session by default.
///
/// **Protocol.** MQTT 3.1.1 (not 5): a persistent session is `cleanSession: false` alone, with
/// `mosquitto_connect_async`; in MQTT 5 it needs a session-expiry property, which libmosquitto
/// 2.0 only sends from its blocking `mosquitto_connect_bind_v5`. What 3.1.1 lacks: its PUBACK has
/// no reason code, so a message the broker's ACL refuses is acknowledged all the same (and
/// dropped). Keep the ACL and the topics a node publishes to in step.
///
/// **Threads.** `start` starts the client's network thread ("mqtt"): it connects, runs
/// libmosquitto's loop (`mosquitto_loop`: reading, writing, keepalive pings) and, when the
/// connection fails or ends, waits and connects again (``MQTTReconnectPolicy``). libmosquitto's
/// own `mosquitto_loop_start` thread is not used: it ends for good on a TLS or protocol error (a
/// broker's certificate renewed with the wrong CA would leave the daemon unconnected until it is
/// restarted), and it retries a failed connection without telling anyone.
///
/// Every ``MQTTEvent`` is delivered on that network thread, one at a time, in order, by calling
/// the `events` closure given to `init`. The closure must return promptly (the connection is not
/// served while it runs; a long stall runs out the keepalive). It may call `publish` and
/// `subscribe`; it may call `stop`, which then returns without waiting for the thread.
///
/// The closure should not hold the client strongly (a cycle: the client would never be freed,
/// and its deinit would not stop it); call `stop` when done in any case. `stop` waits for the
/// network thread, which can be inside a host-name lookup (a few seconds at worst).
///
/// `publish`, `subscribe`, `stop` and the properties may be called from any thread. A `published`
/// event may reach the closure before `publish` has returned the message's identifier: a caller
/// that maps identifiers to its own records (an outbox's rows) takes one lock around its call to
/// `publish` and its recording of the identifier, and the same lock in its `published` handler.
/// libmosquitto holds no lock of its own that `publish` needs while it calls the closure, so that
/// lock cannot deadlock with the client (but `stop` must not be called while holding it: `stop`
/// waits for the network thread, which may be waiting for that lock).
///
/// **Delivery.** A QoS 1 or 2 message is kept by libmosquitto until the broker acknowledges it,
/// across reconnections (it is sent again, marked duplicate, after the next CONNACK): `publish`
/// while the broker is away succeeds and the message goes out once the connection is back. It is
/// lost if the client is stopped or the process ends first; the caller's own store (the outbox)
/// is what survives that. A QoS 0 message while disconnected is refused
/// (``MQTTError/notConnected(broker:)``).
public final class MQTTClient: Sendable {
    /// The configuration the client was made with.
    public let configuration: MQTTConfiguration
    public let library: MQTTLibrary
    private let core: MQTTClientCore

    /// Makes a client: validates the configuration, opens libmosquitto, reads the password file,
    /// checks the TLS files and sets the connection up. Nothing is sent until `start`.
    public init(configuration: MQTTConfiguration, events: @escaping @Sendable (MQTTEvent) -> Void) throws(MQTTError) {
        try configuration.validate()
        let library = try MQTTLibrary.open(configuration.libraryFile)
        let password = try configuration.passwordFile.map { path throws(MQTTError) in try MQTTFiles.password(from: path) }
        if configuration.broker.usesTLS {
            if let caFile = configuration.tls.caFile {
                try MQTTFiles.checkPEM(caFile, role: "CA file", kind: .certificate)
            }
            if let certificate = configuration.tls.certificateFile {
                try MQTTFiles.checkPEM(certificate, role: "client certificate", kind: .certificate)
            }
            if let key = configuration.tls.keyFile {
                try MQTTFiles.checkPEM(key, role: "client key", kind: .privateKey)
            }
        }
        self.configuration = configuration
        self.library = library
        core = try MQTTClientCore.make(configuration: configuration, password: password, library: library, events: events)
    }

    deinit {
        core.stop()
    }

    /// Starts the network thread, which connects and stays connected until `stop`. A broker that
    /// cannot be reached is no error here: each failed attempt is a `connectFailed` event, and
    /// the thread keeps trying.
    public func start() throws(MQTTError) {
        try core.start()
    }

    /// Sends DISCONNECT (so the broker does not publish the last will), waits up to
    /// ``MQTTLimits/stopGrace`` for it to go out, closes the connection and ends the network
    /// thread. Messages not yet acknowledged are dropped with the connection. Called from the `events` closure, it returns
    /// at once and the thread ends after the closure returns. A stopped client stays stopped.
    public func stop() {
        core.stop()
    }

    /// Hands a message to libmosquitto and returns its identifier; the `published` event with
    /// that identifier is the broker's acknowledgement. Refused (with the reason) for a bad topic,
    /// a payload over ``MQTTLimits/maxPayloadBytes``, ``MQTTLimits/maxUnacknowledgedMessages``
    /// still unacknowledged, or QoS 0 while disconnected.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = false) throws(MQTTError) -> MQTTMessageID {
        try MQTTTopic.checkPublishable(topic)
        guard payload.count <= MQTTLimits.maxPayloadBytes else {
            throw .payloadTooLarge(bytes: payload.count, limit: MQTTLimits.maxPayloadBytes)
        }
        return try core.publish(topic: topic, payload: payload, qos: qos, retain: retain)
    }

    /// Subscribes to `filter` now if connected, and again after every reconnection. Returns the
    /// SUBSCRIBE's identifier (its `subscribed` event), or nil when not connected (it is sent
    /// once connected).
    @discardableResult
    public func subscribe(_ filter: String, qos: MQTTQoS = .atLeastOnce) throws(MQTTError) -> MQTTMessageID? {
        try MQTTTopic.checkFilter(filter)
        return try core.subscribe(filter, qos: qos)
    }

    /// Whether the broker has accepted the current connection.
    public var isConnected: Bool { core.state.withLock { $0.connected } }

    /// QoS 1 and 2 messages handed to `publish` and not yet acknowledged.
    public var unacknowledgedCount: Int { core.state.withLock { $0.unacknowledged.count } }

    /// Closes the connection's socket under libmosquitto, as a crash or a pulled cable would:
    /// no DISCONNECT, so the broker publishes the last will, and the client reconnects. For
    /// tests only (the descriptor could be reused between reading and shutting it).
    @_spi(Testing)
    public func dropConnectionForTesting() {
        core.dropConnection()
    }
}

/// The client's shared part: the libmosquitto client, the state the network thread and the
/// callers share, and the network thread's loop. The network thread holds it, so it outlives
/// the `MQTTClient` until the thread has ended, which destroys the libmosquitto client last.
final class MQTTClientCore: @unchecked Sendable {
    // Safety: `client` is set once by `make`, before the core is shared, and destroyed (and set
    // to nil) by the network thread as it ends, holding `lifecycle` and `state`, or in deinit if
    // it never started; it is read by the network thread, by its callbacks, or holding
    // `lifecycle` or `state`. libmosquitto's calls on it are thread-safe (cmosquitto_client_new
    // tells it that several threads call it). The mutable state is in `state` and `lastLibraryError`, each
    // behind its lock; `lifecycle` orders starting, connecting and stopping.
    //
    // Locks: `lifecycle`, then `state`; `lastLibraryError` alone. `state` is held around
    // libmosquitto's publish and subscribe, and taken in its callbacks, which it calls holding
    // only its callback lock (never taken by publish or subscribe). The log callback is called
    // holding libmosquitto's message locks, so it takes `lastLibraryError` only. Events are
    // delivered holding none of them.

    let library: MQTTLibrary
    private(set) var client: OpaquePointer?
    let broker: MQTTBrokerURL
    let clientID: String
    let username: String?
    let passwordFile: String?
    let tls: MQTTTLSFiles
    let keepAliveSeconds: UInt16
    let reconnect: MQTTReconnectPolicy
    let maxReceivedPayloadBytes: Int
    let events: @Sendable (MQTTEvent) -> Void

    let lifecycle = MutexLock()
    let state = Guarded(State())
    let lastLibraryError = Guarded<String?>(nil)
    /// Rung by `stop`: wakes the network thread from its wait between attempts.
    let wake = Doorbell()
    /// Rung by the network thread as it ends: wakes `stop`.
    let ended = Doorbell()

    enum Phase {
        case idle
        case running
        case stopping
        case stopped
    }

    struct State {
        var phase = Phase.idle
        /// The network thread is between its start and its end.
        var threadRunning = false
        var thread: pthread_t?
        /// The broker accepted the current connection.
        var connected = false
        /// The current attempt reached an accepted connection.
        var acceptedThisAttempt = false
        /// Why the current attempt failed, as the callbacks learnt it.
        var attemptFailure: MQTTError?
        var unacknowledged = Set<Int32>()
        /// Every filter given to `subscribe`, in order, with its QoS.
        var subscriptions: [(filter: String, qos: MQTTQoS)] = []
    }

    private init(configuration: MQTTConfiguration, library: MQTTLibrary, events: @escaping @Sendable (MQTTEvent) -> Void) {
        self.library = library
        broker = configuration.broker
        clientID = configuration.clientID
        username = configuration.username
        passwordFile = configuration.passwordFile
        tls = configuration.tls
        keepAliveSeconds = configuration.keepAliveSeconds
        reconnect = configuration.reconnect
        maxReceivedPayloadBytes = configuration.maxReceivedPayloadBytes
        self.events = events
    }

    deinit {
        if let client { cmosquitto_client_destroy(client) }
    }

    static func make(
        configuration: MQTTConfiguration, password: String?, library: MQTTLibrary, events: @escaping @Sendable (MQTTEvent) -> Void
    ) throws(MQTTError) -> MQTTClientCore {
        let core = MQTTClientCore(configuration: configuration, library: library, events: events)
        var callbacks = cmosquitto_callbacks(
            connected: { context, code, flags in MQTTClientCore.from(context).connected(code: code, flags: flags) },
            disconnected: { context, rc, errorNumber in MQTTClientCore.from(context).disconnected(rc: rc, errorNumber: errorNumber) },
            published: { context, mid in MQTTClientCore.from(context).published(mid: mid) },
            message: { context, topic, payload, length, qos, retained in
                MQTTClientCore.from(context).received(topic: topic, payload: payload, length: length, qos: qos, retained: retained)
            },
            subscribed: { context, mid, count, granted in MQTTClientCore.from(context).subscribed(mid: mid, count: count, granted: granted) },
            log: { context, level, text in MQTTClientCore.from(context).logged(level: level, text: text) }
        )
        // Unretained: the core destroys the libmosquitto client in its deinit, after which no
        // callback can come.
        let context = Unmanaged.passUnretained(core).toOpaque()
        guard let client = cmosquitto_client_new(library.raw, configuration.clientID, configuration.cleanSession, &callbacks, context) else {
            throw .library(operation: "making a client", reason: SystemErrno.describe(SystemErrno.current))
        }
        core.client = client

        func check(_ rc: Int32, _ operation: String) throws(MQTTError) {
            if rc != CMOSQUITTO_ERR_SUCCESS { throw .library(operation: operation, reason: library.describe(rc)) }
        }
        try check(cmosquitto_int_option(client, CMOSQUITTO_OPT_PROTOCOL_VERSION, CMOSQUITTO_PROTOCOL_V311), "MQTT 3.1.1")
        try check(cmosquitto_int_option(client, CMOSQUITTO_OPT_SEND_MAXIMUM, MQTTLimits.inflightWindow), "the in-flight window")
        if let username = configuration.username {
            try check(cmosquitto_username_pw_set(client, username, password), "the user name and password")
        }
        if let will = configuration.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                cmosquitto_will_set(client, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos.rawValue, will.retain)
            }
            try check(rc, "the last will on '\(will.topic)'")
        }
        if configuration.broker.usesTLS {
            let files = configuration.tls
            if let caFile = files.caFile {
                try check(cmosquitto_tls_set(client, caFile, files.certificateFile, files.keyFile), "the TLS files (CA \(caFile))")
            } else {
                try check(cmosquitto_int_option(client, CMOSQUITTO_OPT_TLS_USE_OS_CERTS, 1), "the system's CA certificates")
            }
            // Verify the broker's certificate (and its host name: libmosquitto does unless told
            // otherwise), TLS 1.2 or later.
            try check(cmosquitto_tls_opts_set(client, CMOSQUITTO_SSL_VERIFY_PEER, "tlsv1.2", nil), "the TLS options")
        }
        return core
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MQTTClientCore {
        Unmanaged<MQTTClientCore>.fromOpaque(context!).takeUnretainedValue()
    }

    // MARK: Starting and stopping

    func start() throws(MQTTError) {
        let refusal: MQTTError? = lifecycle.withLock {
            state.withLock { state in
                switch state.phase {
                case .idle: break
                case .running: return .alreadyStarted
                case .stopping, .stopped: return .stopped
                }
                state.phase = .running
                state.threadRunning = true
                return nil
            }
        }
        if let refusal { throw refusal }
        DetachedThread.start(name: "mqtt") { [self] in
            state.withLock { $0.thread = pthread_self() }
            runNetworkLoop()
            state.withLock {
                $0.threadRunning = false
                $0.thread = nil
            }
            ended.ringAlways()
        }
    }

    func stop() {
        lifecycle.withLock {
            let wasRunning = state.withLock { state in
                switch state.phase {
                case .idle:
                    state.phase = .stopped
                    return false
                case .running:
                    state.phase = .stopping
                    return true
                case .stopping, .stopped:
                    return false
                }
            }
            // Queues DISCONNECT and wakes the loop's select; without a connection it does nothing.
            if wasRunning, let client { _ = cmosquitto_disconnect(client) }
        }
        wake.ringAlways()
        let onNetworkThread = state.withLock { state in state.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if onNetworkThread { return }
        while state.withLock({ $0.threadRunning }) {
            ended.sleep(nanoseconds: 100_000_000) { !state.withLock { $0.threadRunning } }
        }
        state.withLock { $0.phase = .stopped }
    }

    private var isRunning: Bool { state.withLock { $0.phase == .running } }

    // MARK: The network thread

    private func runNetworkLoop() {
        guard let client else { return }
        var delay = reconnect.first
        while true {
            lastLibraryError.withLock { $0 = nil }
            state.withLock {
                $0.acceptedThisAttempt = false
                $0.attemptFailure = nil
            }
            var errorNumber: Int32 = 0
            // Under `lifecycle`, so a `stop` comes either before (and no attempt is made) or
            // after (and finds the socket to send DISCONNECT on).
            let started: Int32? = lifecycle.withLock {
                guard isRunning else { return nil }
                return cmosquitto_connect_async(client, broker.host, Int32(broker.port), Int32(keepAliveSeconds), &errorNumber)
            }
            guard let started else { break }
            var rc = started
            if rc == CMOSQUITTO_ERR_SUCCESS {
                rc = serveConnection(client, errorNumber: &errorNumber)
            } else {
                recordFailure(.connectionFailed(broker: broker.description, reason: reason(rc, errorNumber: errorNumber)))
            }

            // The attempt is over: the connection ended, or never was.
            let (accepted, failure, lostUnannounced) = state.withLock { state in
                let lost = state.connected
                state.connected = false
                return (state.acceptedThisAttempt, state.attemptFailure, lost)
            }
            if lostUnannounced {
                // libmosquitto closed the socket without its disconnect callback.
                let error: MQTTError? = isRunning ? .connectionLost(broker: broker.description, reason: reason(rc, errorNumber: errorNumber)) : nil
                events(.disconnected(error))
            }
            guard isRunning else { break }
            if accepted {
                delay = reconnect.first
            } else {
                let error = failure ?? .connectionFailed(broker: broker.description, reason: reason(rc, errorNumber: errorNumber))
                events(.connectFailed(error, retryIn: delay))
            }
            waitBeforeReconnecting(delay)
            if !accepted { delay = min(delay * 2, reconnect.maximum) }
        }
        // Stopped: the socket is closed now, whether DISCONNECT went out or not, and the messages
        // libmosquitto still held go with it.
        lifecycle.withLock {
            state.withLock { state in
                if let client = self.client {
                    cmosquitto_client_destroy(client)
                    self.client = nil
                }
                state.unacknowledged.removeAll()
            }
        }
    }

    /// Runs libmosquitto's loop until the connection ends or `stop`; returns the loop's last
    /// result. After `stop`, gives DISCONNECT up to ``MQTTLimits/stopGrace`` to go out.
    private func serveConnection(_ client: OpaquePointer, errorNumber: inout Int32) -> Int32 {
        // The select inside waits at most until the next keepalive ping is due, and publish,
        // subscribe and disconnect wake it: no periodic wake-up of our own.
        let timeout = Int32(keepAliveSeconds) * 1_000
        while isRunning {
            let rc = cmosquitto_loop(client, timeout, &errorNumber)
            if rc != CMOSQUITTO_ERR_SUCCESS { return rc }
        }
        let clock = MonotonicClock()
        let deadline = clock.now().nanoseconds + MQTTClientCore.nanoseconds(MQTTLimits.stopGrace)
        let slice: Int64 = 100_000_000
        var rc = CMOSQUITTO_ERR_SUCCESS
        while rc == CMOSQUITTO_ERR_SUCCESS {
            let left = deadline - clock.now().nanoseconds
            if left <= 0 { break }
            rc = cmosquitto_loop(client, Int32(min(left, slice) / 1_000_000) + 1, &errorNumber)
        }
        return rc
    }

    private func waitBeforeReconnecting(_ delay: Duration) {
        let base = MQTTClientCore.nanoseconds(delay)
        let wait = base + Int64.random(in: 0...(base / MQTTLimits.reconnectJitterDivisor))
        let clock = MonotonicClock()
        let deadline = clock.now().nanoseconds + wait
        while isRunning {
            let left = deadline - clock.now().nanoseconds
            if left <= 0 { return }
            wake.sleep(nanoseconds: left) { !isRunning }
        }
    }

    private func recordFailure(_ error: MQTTError) {
        state.withLock { state in
            if state.attemptFailure == nil { state.attemptFailure = error }
        }
    }

    // MARK: Callbacks (on the network thread)

    private func connected(code: Int32, flags: Int32) {
        guard code == 0 else {
            recordFailure(.refused(broker: broker.description, code: code, reason: library.describeRefusal(code), hint: refusalHint(code)))
            return
        }
        let subscriptions = state.withLock { state in
            state.connected = true
            state.acceptedThisAttempt = true
            state.attemptFailure = nil
            return state.subscriptions
        }
        if let client {
            for subscription in subscriptions {
                var mid: Int32 = 0
                _ = cmosquitto_subscribe(client, &mid, subscription.filter, subscription.qos.rawValue)
            }
        }
        events(.connected(sessionPresent: flags & CMOSQUITTO_CONNACK_SESSION_PRESENT != 0))
    }

    private func disconnected(rc: Int32, errorNumber: Int32) {
        let wasConnected = state.withLock { state in
            let was = state.connected
            state.connected = false
            return was
        }
        if wasConnected {
            let error: MQTTError? = rc == CMOSQUITTO_ERR_SUCCESS ? nil : .connectionLost(broker: broker.description, reason: reason(rc, errorNumber: errorNumber))
            events(.disconnected(error))
        } else if rc != CMOSQUITTO_ERR_SUCCESS {
            recordFailure(.connectionFailed(broker: broker.description, reason: reason(rc, errorNumber: errorNumber)))
        }
    }

    private func published(mid: Int32) {
        state.withLock { _ = $0.unacknowledged.remove(mid) }
        events(.published(MQTTMessageID(mid)))
    }

    /// Takes at most ``maxReceivedPayloadBytes`` of the payload (the one place a message comes
    /// in: every reader's bound starts here), and says how long it was.
    private func received(topic: UnsafePointer<CChar>?, payload: UnsafeRawPointer?, length: Int32, qos: Int32, retained: Bool) {
        let length = max(0, Int(length))
        let bytes: [UInt8] = if let payload, length > 0 {
            Array(UnsafeRawBufferPointer(start: payload, count: min(length, maxReceivedPayloadBytes)))
        } else {
            []
        }
        let message = MQTTMessage(
            topic: topic.map { String(cString: $0) } ?? "", payload: bytes, qos: MQTTQoS(rawValue: qos) ?? .atMostOnce, retained: retained,
            payloadBytes: length
        )
        events(.message(message))
    }

    private func subscribed(mid: Int32, count: Int32, granted: UnsafePointer<Int32>?) {
        let qos: [MQTTQoS?] = if let granted, count > 0 {
            UnsafeBufferPointer(start: granted, count: Int(count)).map { MQTTQoS(rawValue: $0) }
        } else {
            []
        }
        events(.subscribed(MQTTMessageID(mid), granted: qos))
    }

    /// Called with libmosquitto's locks held, on any thread: keeps the last error line, which
    /// is all it says about a TLS failure.
    private func logged(level: Int32, text: UnsafePointer<CChar>?) {
        guard level & CMOSQUITTO_LOG_ERR != 0, let text else { return }
        let line = String(cString: text)
        lastLibraryError.withLock { $0 = line }
    }

    // MARK: Publishing and subscribing (any thread)

    func publish(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool) throws(MQTTError) -> MQTTMessageID {
        try state.withLock { state throws(MQTTError) -> MQTTMessageID in
            try checkRunning(state)
            guard let client else { throw .notStarted }
            if qos != .atMostOnce && state.unacknowledged.count >= MQTTLimits.maxUnacknowledgedMessages {
                throw .tooManyUnacknowledged(broker: broker.description, limit: MQTTLimits.maxUnacknowledgedMessages)
            }
            var mid: Int32 = 0
            let rc = payload.withUnsafeBytes { bytes in
                cmosquitto_publish(client, &mid, topic, Int32(bytes.count), bytes.baseAddress, qos.rawValue, retain)
            }
            switch rc {
            case CMOSQUITTO_ERR_SUCCESS:
                break
            case CMOSQUITTO_ERR_NO_CONN where qos != .atMostOnce:
                // libmosquitto kept it (msgs_out) and sends it after the next CONNACK.
                break
            case CMOSQUITTO_ERR_NO_CONN:
                throw .notConnected(broker: broker.description)
            default:
                throw .library(operation: "publishing to '\(topic)' on \(broker)", reason: library.describe(rc))
            }
            if qos != .atMostOnce { state.unacknowledged.insert(mid) }
            return MQTTMessageID(mid)
        }
    }

    func subscribe(_ filter: String, qos: MQTTQoS) throws(MQTTError) -> MQTTMessageID? {
        try state.withLock { state throws(MQTTError) -> MQTTMessageID? in
            try checkRunning(state, allowIdle: true)
            if let index = state.subscriptions.firstIndex(where: { $0.filter == filter }) {
                state.subscriptions[index].qos = qos
            } else {
                state.subscriptions.append((filter, qos))
            }
            guard state.connected, let client else { return nil }
            var mid: Int32 = 0
            let rc = cmosquitto_subscribe(client, &mid, filter, qos.rawValue)
            switch rc {
            case CMOSQUITTO_ERR_SUCCESS: return MQTTMessageID(mid)
            case CMOSQUITTO_ERR_NO_CONN: return nil
            default: throw .library(operation: "subscribing to '\(filter)' on \(broker)", reason: library.describe(rc))
            }
        }
    }

    private func checkRunning(_ state: State, allowIdle: Bool = false) throws(MQTTError) {
        switch state.phase {
        case .running: return
        case .idle: if !allowIdle { throw .notStarted }
        case .stopping, .stopped: throw .stopped
        }
    }

    func dropConnection() {
        guard let client else { return }
        let descriptor = cmosquitto_socket(client)
        if descriptor >= 0 { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    // MARK: Wording

    /// libmosquitto's reason for `rc`, with its last error line and what to check.
    private func reason(_ rc: Int32, errorNumber: Int32) -> String {
        var text = library.describe(rc, errorNumber: errorNumber)
        if let line = lastLibraryError.withLock({ $0 }) { text += " (libmosquitto: \(line))" }
        // libmosquitto says MOSQ_ERR_TLS when OpenSSL fails the handshake in its connect step,
        // but when the handshake goes on in a later read or write (the broker's answer not yet
        // there; seen with trixie's libmosquitto 2.0.21, the Pi's, in the aarch64 tests under
        // qemu) it sets errno to EPROTO and says MOSQ_ERR_ERRNO ("Protocol error"): on a TLS
        // connection that is a TLS failure too, and gets the same hint.
        let tlsFailed = rc == CMOSQUITTO_ERR_TLS || rc == CMOSQUITTO_ERR_TLS_HANDSHAKE
            || (rc == CMOSQUITTO_ERR_ERRNO && errorNumber == EPROTO && broker.usesTLS)
        switch rc {
        case _ where tlsFailed:
            if let caFile = tls.caFile {
                text += "; check that the CA file \(caFile) holds the CA that signed the broker's certificate, and that the "
                    + "certificate is for \(broker.host)"
                if let certificate = tls.certificateFile {
                    text += ", and that the broker accepts the client certificate \(certificate)"
                }
            } else {
                text += "; the system's CA certificates do not verify the broker's certificate: give its CA file"
            }
        case CMOSQUITTO_ERR_EAI:
            text += "; check the host name '\(broker.host)'"
        default:
            break
        }
        return text
    }

    /// What to check for a CONNACK refusal (MQTT 3.1.1's codes 1 to 5).
    private func refusalHint(_ code: Int32) -> String {
        switch code {
        case 1: return "the broker does not speak MQTT 3.1.1"
        case 2: return "the broker does not accept the client id '\(clientID)'"
        case 3: return "the broker is not available now; the client keeps trying"
        case 4, 5:
            guard let username else {
                return "no user name is set, and this broker wants one (and its password file)"
            }
            let file = passwordFile.map { "the password in \($0)" } ?? "a password (none is set)"
            return "check the user name '\(username)' and \(file) against the broker's password file and ACL"
        default: return ""
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
