import ControllerChecks
import Testing

@Suite struct StatusEndpointsTests {
    static let turnstile = StatusCheckSpec(gauges: ["credit"], kinds: ["coins", "passages"], statusKeys: ["credit"],
                                           states: ["locked", "unlocked", "broken"])

    /// What the Prometheus parser reads of a turnstile's /metrics, in `current`.
    func families(current: String = "locked", states: [String] = ["locked", "unlocked", "broken"], omitting: String? = nil,
                  creditType: String = "gauge") -> [MetricFamily] {
        func family(_ suffix: String, _ type: String, _ samples: [MetricFamily.Sample] = [MetricFamily.Sample(name: "x", labels: [:], value: 0)]) -> MetricFamily {
            MetricFamily(name: "turnstiled_\(suffix)", type: type, samples: samples)
        }
        let all = [
            family("events", "counter", ["coins", "passages", "ignored"].map { MetricFamily.Sample(name: "turnstiled_events_total", labels: ["kind": $0], value: 1) }),
            family("dispatched_events", "counter"), family("dropped_commands", "counter"), family("lost_edges", "counter"),
            family("trace_losses", "counter"),
            family("state", "gauge", states.map { MetricFamily.Sample(name: "turnstiled_state", labels: ["state": $0], value: $0 == current ? 1 : 0) }),
            family("phase", "gauge"), family("queue_depth", "gauge"), family("uptime_seconds", "gauge"),
            family("edge_to_relay_seconds", "histogram", [MetricFamily.Sample(name: "turnstiled_edge_to_relay_seconds_bucket", labels: ["le": "+Inf"], value: 3)]),
            family("credit", creditType),
        ]
        return all.filter { $0.name != omitting.map { "turnstiled_\($0)" } }
    }

    func endpoints(_ families: [MetricFamily], spec: StatusCheckSpec? = turnstile) throws(CheckFailure) -> StatusEndpoints {
        try StatusEndpoints(families: families) { daemon throws(CheckFailure) in daemon == "turnstiled" ? spec : nil }
    }

    /// The message of the check's failure.
    func failure(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "(no failure)"
        } catch let failure as CheckFailure {
            return failure.message
        } catch {
            return "(not a CheckFailure: \(error))"
        }
    }

    @Test func theDaemonIsNamedByItsStateFamilyAndHeldToItsPackagesStates() throws {
        let found = try endpoints(families())
        #expect(found.daemon == "turnstiled" && found.currentState == "locked")
        #expect(found.kinds == ["coins", "ignored", "passages"])
        #expect(found.metricsSummary == "turnstiled, 11 families, 15 samples, current state locked")
        #expect(try endpoints(families(), spec: nil).metricsSummary.hasSuffix("(only the runtime's checks: no package's packaging/checks.json says what turnstiled shows)"))
    }

    @Test func eachWayTheMetricsCanBeWrongIsNamed() {
        #expect(failure { _ = try endpoints(families(omitting: "lost_edges")) } == "/metrics: family turnstiled_lost_edges missing")
        #expect(failure { _ = try endpoints(families(omitting: "credit")) } == "/metrics: family turnstiled_credit missing")
        #expect(failure { _ = try endpoints(families(creditType: "counter")) } == "/metrics: family turnstiled_credit is a counter, expected a gauge")
        #expect(failure { _ = try endpoints(families(current: "nowhere")) } == "/metrics: turnstiled_state has 0 states at 1, expected exactly one")
        #expect(failure { _ = try endpoints(families(states: ["locked", "open"])) }.contains("names the states [\"locked\", \"open\"], expected turnstiled's"))
        #expect(failure { _ = try endpoints(families(omitting: "state")) }.contains("expected one NAME_state gauge"))
        let missingKind = StatusCheckSpec(gauges: [], kinds: ["coins", "refunds"], statusKeys: [], states: ["locked", "unlocked", "broken"])
        #expect(failure { _ = try endpoints(families(), spec: missingKind) } == #"/metrics: turnstiled_events_total{kind="refunds"} missing"#)
    }

    func status(state: String = "locked", counters: String = #"{"coins":2,"passages":1}"#, omitting: String? = nil,
                transitions: String = #"[{"time":"12:00:01","from":"unlocked","event":"push","to":"locked"}]"#) -> String {
        let fields = ["\"phase\":\"running\"", "\"state\":\"\(state)\"", "\"counters\":\(counters)", "\"uptimeSeconds\":3",
                      "\"board\":\"sim\"", "\"chip\":\"sim0\"", "\"events\":3", "\"queueDepth\":0", "\"droppedCommands\":0",
                      "\"lostEdges\":0", "\"traceLosses\":0", "\"lastTransitions\":\(transitions)", "\"credit\":0"]
        return "{" + fields.filter { omitting == nil || !$0.hasPrefix("\"\(omitting!)\"") }.joined(separator: ",") + "}"
    }

    @Test func statusIsHeldToTheSnapshotsKeysAndTheMetricsKindsAndStates() throws {
        let found = try endpoints(families())
        #expect(try found.checkStatus(json: status()) == "locked")
        #expect(failure { try found.checkStatus(json: status(omitting: "credit")) } == "/status lacks credit")
        #expect(failure { try found.checkStatus(json: status(omitting: "lostEdges")) } == "/status lacks lostEdges")
        #expect(failure { try found.checkStatus(json: status(counters: #"{"refunds":1}"#)) } == "/status counts refunds, which /metrics has no turnstiled_events_total kind for")
        #expect(failure { try found.checkStatus(json: status(state: "open")) }.hasPrefix("/status says state open, which is not among /metrics' states"))
        #expect(failure { try found.checkStatus(json: status(transitions: #"[{"from":"a","to":"b"}]"#)) }.hasPrefix("/status has a transition without time, from, event and to"))
        #expect(failure { try found.checkStatus(json: "[1]") }.hasPrefix("/status is not a JSON object"))
    }

    func page(heading: String = "turnstiled", shown: String = "locked", diagram: [String] = ["locked", "unlocked", "broken"],
              highlighted: String = "locked", counters: [String] = ["coins", "passages"], live: Bool = true) -> String {
        let nodes = diagram.map { #"<g class="node\#($0 == highlighted ? " current" : "")" data-state="\#($0)"><rect></rect></g>"# }
        return """
            <html><body data-live="\(live ? "yes" : "no")"><h1>\(heading)</h1>
            <div id="state" class="state" data-state="\(shown)">\(shown)</div>
            <svg>\(nodes.joined())</svg>
            <table>\(counters.map { "<tr><td>\($0)</td><td>1</td></tr>" }.joined())</table></body></html>
            """
    }

    @Test func thePageMustBeThisDaemonsInItsStateWithEveryCounter() throws {
        let found = try endpoints(families())
        #expect(try found.checkPage(dom: page(), statusJSON: status()) == "the rendered page is turnstiled's, its diagram's 3 states with locked highlighted, 2 counters")
        #expect(failure { _ = try found.checkPage(dom: page(live: false), statusJSON: status()) }.contains("never got an answer from /status"))
        #expect(failure { _ = try found.checkPage(dom: page(heading: "barrierd"), statusJSON: status()) } == "the page's heading is not turnstiled: [\"barrierd\"]")
        #expect(failure { _ = try found.checkPage(dom: page(shown: "unlocked"), statusJSON: status()) } == "the page shows state \"unlocked\", /status says \"locked\"")
        #expect(failure { _ = try found.checkPage(dom: page(diagram: ["closed", "opening"]), statusJSON: status()) }.hasPrefix("the diagram's states are [\"closed\", \"opening\"]"))
        #expect(failure { _ = try found.checkPage(dom: page(highlighted: "broken"), statusJSON: status()) } == "the diagram highlights [\"broken\"], expected [locked]")
        #expect(failure { _ = try found.checkPage(dom: page(counters: ["coins"]), statusJSON: status()) } == "the counters table was not drawn (no row for passages)")
    }

    @Test func theParsersOutputDecodesWithInfiniteValues() throws {
        let families = try MetricFamily.decode(#"[{"name":"x_edge_to_relay_seconds","type":"histogram","samples":[{"name":"x_edge_to_relay_seconds_bucket","labels":{"le":"+Inf"},"value":"+Inf"}]}]"#)
        #expect(families[0].samples[0].value == .infinity)
        #expect(throws: CheckFailure.self) { try MetricFamily.decode(#"[{"name":"x","type":"gauge","samples":[{"name":"x","labels":{},"value":"many"}]}]"#) }
    }
}
