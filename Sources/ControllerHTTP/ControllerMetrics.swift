import ControllerFSM
import Prometheus
import ControllerHost
import ControllerDaemon

/// The daemon's Prometheus metrics: the families `/metrics` serves, all in the namespace of the
/// application's ``ControllerApplication/daemonName`` (`turnstiled_…`), its states, counters and
/// gauges taken from its declaration.
///
/// Most of them are read from a ``DaemonSnapshot`` at each scrape (``render(_:)``); the
/// edge-to-relay latency histogram is fed as latencies are measured
/// (``recordLockLatency(nanoseconds:)``, safe from any thread).
///
/// The daemon's cumulative counts become Prometheus counters that only ever go up: each scrape
/// adds what grew since the previous one, so a counter never decreases even if a snapshot's
/// count were lower than one seen before (a store replaced under a running daemon).
public final class ControllerMetrics<App: ControllerApplication>: Sendable {
    /// The registry every family lives in; the daemon may register its own metrics here too.
    public let registry: PrometheusCollectorRegistry

    /// A swift-metrics factory over the same registry, for `MetricsSystem.bootstrap(_:)`: anything
    /// instrumented with swift-metrics then appears in `/metrics` beside the daemon's families.
    /// Labels and dimensions are made Prometheus-safe (`hb.requests` → `hb_requests`).
    public let metricsFactory: PrometheusMetricsFactory

    /// Upper bounds of the edge-to-relay latency buckets. Tens of microseconds are expected on
    /// a Pi-class board (docs/performance.md and docs/operations.md give what is measured); the buckets span 10 µs to 100 ms so that both a healthy
    /// daemon and one starved by a busy machine land in a bucket of their own.
    public static var defaultLatencyBuckets: [Duration] {
        [
            .microseconds(10), .microseconds(25), .microseconds(50), .microseconds(100),
            .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(100),
        ]
    }

    /// The daemon's phases (its lifecycle machine), each given a `turnstiled_phase` series so a
    /// dashboard sees every one at 0 or 1 from the first scrape.
    public static var knownPhases: [String] { MetricsVocabulary.knownPhases }

    private let latency: DurationHistogram
    private let scrapeState: Guarded<ScrapeState>

    public init(latencyBuckets: [Duration] = defaultLatencyBuckets) {
        let vocabulary = MetricsVocabulary(App.self)
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (Self.prometheusName(name), labels.map { (Self.prometheusName($0.0), $0.1) })
        }
        self.metricsFactory = factory
        latency = registry.makeDurationHistogram(
            descriptor: vocabulary.descriptor(
                "edge_to_relay", "seconds",
                "Time from a debounced input edge (kernel timestamp) to the relay write it caused."
            ),
            buckets: latencyBuckets
        )
        scrapeState = Guarded(ScrapeState(registry: registry, vocabulary: vocabulary))
    }

    /// `<daemon>_build_info{version, libgpiod, application} 1`: what is running, for a
    /// dashboard to group by (the runtime's version, the libgpiod found — `libgpiod 2.3
    /// (libgpiod.so.3)`, or `none` on a simulated board — and the application's name).
    public func recordBuildInfo(version: String, libgpiod: String) {
        scrapeState.withLock { state in
            let gauge = state.registry.makeGauge(
                descriptor: state.vocabulary.descriptor("build_info", "", "1, labelled with the runtime's version, the libgpiod found and the application."),
                labels: [("version", version), ("libgpiod", libgpiod), ("application", App.name)])
            gauge.set(1.0)
        }
    }

    /// Records one edge-to-relay latency. Called by the daemon's reporter thread; thread-safe.
    public func recordLockLatency(nanoseconds: Int64) {
        latency.recordNanoseconds(max(0, nanoseconds))
    }

    /// Brings every snapshot-fed family up to date with `snapshot` and renders the whole
    /// registry in the Prometheus text format (version 0.0.4).
    ///
    /// Concurrent scrapes are serialised so that each count's growth is added exactly once.
    public func render(_ snapshot: DaemonSnapshot) -> [UInt8] {
        scrapeState.withLock { state in
            state.update(from: snapshot)
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return buffer
        }
    }

    /// A metric or label name with every character Prometheus does not allow replaced by `_`.
    static func prometheusName(_ name: String) -> String {
        MetricsVocabulary.prometheusName(name)
    }
}

/// What the scrapes remember between them: the families' handles and the counts last added.
private struct ScrapeState {
    let registry: PrometheusCollectorRegistry
    var eventCounters: [String: MonotonicCounter] = [:]
    var stateGauges: [String: Gauge] = [:]
    var phaseGauges: [String: Gauge] = [:]
    var dispatched: MonotonicCounter
    var droppedCommands: MonotonicCounter
    var lostEdges: MonotonicCounter
    var traceLosses: MonotonicCounter
    var outputOverrides: MonotonicCounter
    var unsettledSteps: MonotonicCounter
    var droppedSends: MonotonicCounter
    /// The application's gauges, by their snapshot names, in declaration order.
    let gauges: [(name: String, gauge: Gauge)]
    let queueDepth: Gauge
    let uptime: Gauge
    /// Made at the first snapshot with a site: a daemon without a broker has none.
    var site: (connected: Gauge, outboxDepth: Gauge, nodeConflict: Gauge, quickDisconnects: Gauge)?
    let vocabulary: MetricsVocabulary

    init(registry: PrometheusCollectorRegistry, vocabulary: MetricsVocabulary) {
        self.registry = registry
        self.vocabulary = vocabulary
        func counter(_ name: String, _ help: String) -> MonotonicCounter {
            MonotonicCounter(registry.makeCounter(descriptor: vocabulary.descriptor(name, "total", help)))
        }
        dispatched = counter("dispatched_events", "Events the controller dispatched since the daemon started.")
        droppedCommands = counter("dropped_commands", "Commands refused because the event loop's inbox was full.")
        lostEdges = counter("lost_edges", "Input edges the kernel lost before the daemon read them.")
        traceLosses = counter("trace_losses", "Trace, ledger and output-log records lost because a ring was full.")
        outputOverrides = counter(
            "output_overrides", "Times the host began holding an output at a level other than the one the machine asked for (an interlock, a failed write).")
        unsettledSteps = counter(
            "unsettled_steps", "Steps of the machine that reached a bound (MachineLimits) and were ended; the first one degrades the daemon and holds every output at its fail-safe level.")
        droppedSends = counter("dropped_sends", "Events the machine's work sent while its run-to-completion queue was full, lost.")
        gauges = vocabulary.gauges.map { ($0.name, registry.makeGauge(descriptor: vocabulary.descriptor($0.family, "", $0.help))) }
        queueDepth = registry.makeGauge(descriptor: vocabulary.descriptor("queue_depth", "", "Commands waiting for the event loop."))
        uptime = registry.makeGauge(descriptor: vocabulary.descriptor("uptime", "seconds", "Seconds since the daemon started."))
        for kind in vocabulary.counters {
            _ = eventCounter(kind)
        }
        for state in vocabulary.states {
            _ = stateGauge(state)
        }
        for phase in MetricsVocabulary.knownPhases {
            _ = phaseGauge(phase)
        }
    }

    mutating func update(from snapshot: DaemonSnapshot) {
        for (kind, value) in snapshot.counters {
            eventCounter(kind).advance(to: value)
        }
        dispatched.advance(to: snapshot.events)
        droppedCommands.advance(to: snapshot.droppedCommands)
        lostEdges.advance(to: snapshot.lostEdges)
        traceLosses.advance(to: snapshot.traceLosses)
        outputOverrides.advance(to: snapshot.outputOverrides)
        unsettledSteps.advance(to: snapshot.unsettledSteps)
        droppedSends.advance(to: snapshot.droppedSends)
        for (name, gauge) in gauges {
            gauge.set(Int64(snapshot.gauges[name] ?? 0))
        }
        queueDepth.set(Int64(snapshot.queueDepth))
        uptime.set(snapshot.uptimeSeconds)
        if let state = snapshot.site {
            let (registry, vocabulary) = (registry, vocabulary)
            let metrics = site ?? (
                registry.makeGauge(descriptor: vocabulary.descriptor("mqtt_connected", "", "1 while the site's MQTT broker has accepted the connection.")),
                registry.makeGauge(descriptor: vocabulary.descriptor(
                    "mqtt_outbox_depth", "", "Counted events the MQTT broker has not acknowledged yet (kept in the database until it does).")),
                registry.makeGauge(descriptor: vocabulary.descriptor(
                    "mqtt_node_conflict", "", "1 once another live controller claimed this node's id on the broker (2: this one started later and stopped publishing).")),
                registry.makeGauge(descriptor: vocabulary.descriptor(
                    "mqtt_quick_disconnects", "", "Connections the broker closed within seconds of accepting them (another client taking over the same client id).")))
            site = metrics
            metrics.connected.set(Int64(state.connected ? 1 : 0))
            metrics.outboxDepth.set(Int64(state.outboxDepth))
            metrics.nodeConflict.set(Int64(state.conflict.map { $0.yielded ? 2 : 1 } ?? 0))
            metrics.quickDisconnects.set(Int64(state.quickDisconnects ?? 0))
        }
        // With parallel regions every active innermost state is 1: `state` is the first
        // region's, `alsoActive` the others'.
        _ = stateGauge(snapshot.state)
        for (name, gauge) in stateGauges {
            gauge.set(name == snapshot.state || snapshot.alsoActive.contains(name) ? 1.0 : 0.0)
        }
        _ = phaseGauge(snapshot.phase)
        for (name, gauge) in phaseGauges {
            gauge.set(name == snapshot.phase ? 1.0 : 0.0)
        }
    }

    private mutating func eventCounter(_ kind: String) -> MonotonicCounter {
        let (registry, vocabulary) = (registry, vocabulary)
        return Self.member(of: &eventCounters, labelled: kind) {
            MonotonicCounter(registry.makeCounter(
                descriptor: vocabulary.descriptor("events", "total", vocabulary.eventsHelp),
                labels: [("kind", kind)]))
        }
    }

    private mutating func stateGauge(_ state: String) -> Gauge {
        let (registry, vocabulary) = (registry, vocabulary)
        return Self.member(of: &stateGauges, labelled: state) {
            registry.makeGauge(descriptor: vocabulary.descriptor("state", "", vocabulary.stateHelp),
                               labels: [("state", state)])
        }
    }

    private mutating func phaseGauge(_ phase: String) -> Gauge {
        let (registry, vocabulary) = (registry, vocabulary)
        return Self.member(of: &phaseGauges, labelled: phase) {
            registry.makeGauge(descriptor: vocabulary.descriptor("phase", "", "1 for the daemon's current lifecycle phase, 0 for the others."),
                               labels: [("phase", phase)])
        }
    }

    /// The family member for `label`, registered with `make` the first time it is asked for.
    private static func member<Metric>(of family: inout [String: Metric], labelled label: String, make: () -> Metric) -> Metric {
        if let metric = family[label] { return metric }
        let metric = make()
        family[label] = metric
        return metric
    }
}

/// A Prometheus counter fed from a cumulative count: adds what the count grew by since the last
/// value it saw. A count lower than the last one is taken as the new base, adding nothing, so
/// the counter never decreases and later growth is still counted.
private final class MonotonicCounter {
    let counter: Counter
    var last = 0

    init(_ counter: Counter) {
        self.counter = counter
    }

    func advance(to value: Int) {
        if value > last {
            counter.increment(by: Int64(value - last))
        }
        last = value
    }
}
