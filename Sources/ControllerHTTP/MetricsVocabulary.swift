import ControllerHost
import Prometheus

/// The application's words in the metrics, read once from its declaration: the namespace, the
/// states, counters and gauges pre-registered so a dashboard sees each from the first scrape,
/// and the help texts that name the application.
struct MetricsVocabulary: Sendable {
    /// The families the daemon registers itself, by full name without the namespace: a gauge may
    /// not take one.
    static let daemonFamilies: Set<String> = [
        "edge_to_relay_seconds", "dispatched_events_total", "dropped_commands_total", "lost_edges_total",
        "trace_losses_total", "queue_depth", "uptime_seconds", "events_total", "state", "phase",
    ]
    /// The daemon's phases (``ControllerMetrics/knownPhases``).
    static let knownPhases = ["starting", "selfTest", "running", "draining", "stopped", "degraded"]
    /// How many counter names the help text of the events family gives as examples.
    static let exampleCounters = 3

    let namespace: String
    let states: [String]
    let stateHelp: String
    let counters: [String]
    let eventsHelp: String
    /// Each gauge's snapshot name, family name and help text, in declaration order.
    let gauges: [(name: String, family: String, help: String)]

    init<App: ControllerApplication>(_: App.Type) {
        namespace = Self.prometheusName(App.daemonName)
        // The innermost states only: the state a snapshot reports is one of them (a superstate
        // is around it, a history never active), so each has a series of its own.
        states = App.table.atomicStates.map(\.name)
        stateHelp = App.table.hasParallelRegions
            ? "1 for each innermost state the \(App.name) is in (one per active parallel region), 0 for the others."
            : "1 for the \(App.name)'s current state, 0 for the others."
        counters = App.counterNames
        let examples = counters.prefix(Self.exampleCounters).joined(separator: ", ")
            + (counters.count > Self.exampleCounters ? ", ..." : "")
        eventsHelp = "\(Self.capitalized(App.name)) events by kind (\(examples)), durable counts."
        gauges = App.gauges.map { gauge in
            let family = Self.prometheusName(gauge.name)
            precondition(
                !Self.daemonFamilies.contains(family),
                "\(App.name)'s gauge \(gauge.name) would be the daemon's own metric \(family); rename the gauge in its declaration")
            let help = gauge.summary.isEmpty ? "The \(App.name)'s \(gauge.name)" : Self.capitalized(gauge.summary)
            return (gauge.name, family, help + " (durable).")
        }
    }

    /// A family name in the daemon's namespace: `turnstiled_NAME_UNIT` (no unit: `turnstiled_NAME`).
    func descriptor(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: namespace, metricName: name, unitName: unit, helpText: help)
    }

    static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }

    /// A metric or label name with every character Prometheus does not allow replaced by `_`.
    static func prometheusName(_ name: String) -> String {
        var result = ""
        for (offset, character) in name.enumerated() {
            let allowed = character.isASCII && (character.isLetter || character == "_" || character == ":"
                || (offset > 0 && character.isNumber))
            result.append(allowed ? character : "_")
        }
        return result
    }
}
