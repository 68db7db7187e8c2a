import CoreMetrics
import Hummingbird
import Testing
import ControllerDaemon
import Turnstile
@testable import ControllerHTTP

@Suite struct MetricsRouteTests {
    @Test func servesThePrometheusTextFormatWithEveryFamily() async throws {
        let source = SnapshotSource(fixedSnapshot())
        try await withRoutes(source) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
                let body = String(buffer: response.body)
                #expect(sample(body, #"turnstiled_events_total{kind="coins"}"#) == 7)
                #expect(sample(body, #"turnstiled_events_total{kind="passages"}"#) == 4)
                // Kinds the snapshot does not carry yet are there at 0 from the first scrape.
                #expect(sample(body, #"turnstiled_events_total{kind="faults"}"#) == 0)
                #expect(sample(body, "turnstiled_dispatched_events_total") == 20)
                #expect(sample(body, "turnstiled_dropped_commands_total") == 1)
                #expect(sample(body, "turnstiled_lost_edges_total") == 2)
                #expect(sample(body, "turnstiled_trace_losses_total") == 3)
                #expect(sample(body, "turnstiled_credit") == 2)
                #expect(sample(body, "turnstiled_queue_depth") == 4)
                #expect(sample(body, "turnstiled_uptime_seconds") == 61.25)
                #expect(body.contains("# TYPE turnstiled_edge_to_relay_seconds histogram"))
                #expect(body.contains("# HELP turnstiled_events_total "))
            }
        }
    }

    @Test func theCurrentStateAndPhaseAreOneAndTheOthersZero() async throws {
        let source = SnapshotSource(fixedSnapshot(phase: "draining", state: "broken"))
        try await withRoutes(source) { client in
            let body = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            for state in ["locked", "unlocked", "broken", "outOfOrder", "emergency"] {
                #expect(sample(body, #"turnstiled_state{state="\#(state)"}"#) == (state == "broken" ? 1 : 0))
            }
            for phase in ControllerMetrics<TurnstileApplication>.knownPhases {
                #expect(sample(body, #"turnstiled_phase{phase="\#(phase)"}"#) == (phase == "draining" ? 1 : 0))
            }
            source.set(fixedSnapshot(phase: "running", state: "emergency"))
            let after = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(sample(after, #"turnstiled_state{state="broken"}"#) == 0)
            #expect(sample(after, #"turnstiled_state{state="emergency"}"#) == 1)
            #expect(sample(after, #"turnstiled_phase{phase="running"}"#) == 1)
        }
    }

    @Test func countersGrowByWhatTheSnapshotGrewAndNeverDecrease() async throws {
        let source = SnapshotSource(fixedSnapshot(counters: ["coins": 5], lostEdges: 2))
        try await withRoutes(source) { client in
            _ = try await client.execute(uri: "/metrics", method: .get) { $0 }
            source.set(fixedSnapshot(counters: ["coins": 9, "repairs": 1], lostEdges: 2))
            let second = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(sample(second, #"turnstiled_events_total{kind="coins"}"#) == 9)
            #expect(sample(second, #"turnstiled_events_total{kind="repairs"}"#) == 1)
            #expect(sample(second, "turnstiled_lost_edges_total") == 2)
            // A lower count (a store replaced under the daemon) adds nothing...
            source.set(fixedSnapshot(counters: ["coins": 3, "repairs": 1], lostEdges: 0))
            let third = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(sample(third, #"turnstiled_events_total{kind="coins"}"#) == 9)
            #expect(sample(third, "turnstiled_lost_edges_total") == 2)
            // ...and growth from the new base is still counted.
            source.set(fixedSnapshot(counters: ["coins": 5, "repairs": 1], lostEdges: 1))
            let fourth = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(sample(fourth, #"turnstiled_events_total{kind="coins"}"#) == 11)
            #expect(sample(fourth, "turnstiled_lost_edges_total") == 3)
        }
    }

    @Test func recordedLatenciesLandInTheirBuckets() async throws {
        let metrics = ControllerMetrics<TurnstileApplication>()
        // 20 µs, 40 µs, 40 µs, 3 ms, and a negative reading (clock step) taken as 0.
        for nanoseconds: Int64 in [20_000, 40_000, 40_000, 3_000_000, -5] {
            metrics.recordLockLatency(nanoseconds: nanoseconds)
        }
        try await withRoutes(SnapshotSource(fixedSnapshot()), metrics: metrics) { client in
            let body = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            let name = "turnstiled_edge_to_relay_seconds"
            #expect(sample(body, #"\#(name)_bucket{le="0.00001"}"#) == 1)
            #expect(sample(body, #"\#(name)_bucket{le="0.000025"}"#) == 2)
            #expect(sample(body, #"\#(name)_bucket{le="0.00005"}"#) == 4)
            #expect(sample(body, #"\#(name)_bucket{le="0.0025"}"#) == 4)
            #expect(sample(body, #"\#(name)_bucket{le="0.005"}"#) == 5)
            #expect(sample(body, #"\#(name)_bucket{le="+Inf"}"#) == 5)
            #expect(sample(body, "\(name)_count") == 5)
            let sum = try #require(sample(body, "\(name)_sum"))
            #expect(abs(sum - 0.0031) < 1e-9)
        }
    }

    @Test func latenciesRecordedFromManyThreadsAreAllCounted() async throws {
        let metrics = ControllerMetrics<TurnstileApplication>()
        let threads = 8, perThread = 1000
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads {
                group.addTask {
                    for _ in 0..<perThread { metrics.recordLockLatency(nanoseconds: 30_000) }
                }
            }
        }
        let body = String(decoding: metrics.render(fixedSnapshot()), as: UTF8.self)
        #expect(sample(body, "turnstiled_edge_to_relay_seconds_count") == Double(threads * perThread))
    }

    @Test func swiftMetricsThroughTheFactoryAppearWithPrometheusNames() async throws {
        let metrics = ControllerMetrics<TurnstileApplication>()
        let counter = CoreMetrics.Counter(label: "hb.requests", dimensions: [("http.route", "/status")], factory: metrics.metricsFactory)
        counter.increment(by: 3)
        let body = String(decoding: metrics.render(fixedSnapshot()), as: UTF8.self)
        #expect(sample(body, #"hb_requests{http_route="/status"}"#) == 3)
    }
}
