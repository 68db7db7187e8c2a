import ControllerChecks
import Testing

@Suite struct SiteResultsTests {
    /// A node's trace: ready at `origin`, the emergency step `seconds` later.
    func trace(origin: Int64, emergencyAfter seconds: Double?) -> String {
        var lines = [#"{"type":"ready","originUnixNanoseconds":\#(origin),"state":"locked"}"#,
                     #"{"type":"transition","t":0.5,"from":"locked","event":"coin","to":"unlocked"}"#]
        if let seconds { lines.append(#"{"type":"transition","t":\#(seconds),"from":"unlocked","event":"emergencyOn","to":"emergency"}"#) }
        return "run: started\n" + lines.joined(separator: "\n") + "\n"
    }

    func fleet(availability: String = "offline", sums: String = #"{"barrier":{"entries":2},"turnstile":{"coins":5,"passages":4}}"#) -> String {
        #"{"controllers":[{"node":"gate-1","app":"turnstile","availability":"\#(availability)"},{"node":"gate-2","app":"barrier","availability":"offline"}],"online":0,"sums":\#(sums)}"#
    }

    var nodes: [SiteResults.Node] {
        [SiteResults.Node(number: 1, trace: trace(origin: 1_000_000_000, emergencyAfter: 10.25), stats: #"{"totals":{"coins":5,"passages":4},"sessions":1}"#),
         SiteResults.Node(number: 2, trace: trace(origin: 2_000_000_000, emergencyAfter: 9.5), stats: #"{"totals":{"entries":2}}"#)]
    }

    @Test func latenciesAreFromThePublicationToEachNodesOwnStep() throws {
        // Published at 11.2 s: node 1 stepped at 1 + 10.25 = 11.25 s, node 2 at 2 + 9.5 = 11.5 s.
        let results = try SiteResults(fleet: fleet(), nodes: nodes, event: "emergencyOn", published: 11_200_000_000, limitMilliseconds: 1000)
        #expect(results.problems == [])
        #expect(results.latencies.map { ($0 * 1000).rounded() / 1000 } == [50, 300])
        #expect(results.sums == ["turnstile": ["coins": 5, "passages": 4], "barrier": ["entries": 2]])
        #expect(results.countedTotal == 11)
        #expect(results.sumsSummary == "barrier: entries 2; turnstile: coins 5, passages 4")
        #expect(results.latencySummary == "p50 300.0 ms, slowest 300.0 ms over 2 controllers")
    }

    @Test func aSlowNodeAMissedEmergencyAnOnlineNodeAndWrongSumsAreEachNamed() throws {
        let slow = try SiteResults(fleet: fleet(), nodes: nodes, event: "emergencyOn", published: 11_200_000_000, limitMilliseconds: 200)
        #expect(slow.problems.count == 1 && slow.problems[0].contains("300.0 ms after its publication, over the 200 ms limit"), "\(slow.problems)")

        let missed = [nodes[0], SiteResults.Node(number: 2, trace: trace(origin: 2_000_000_000, emergencyAfter: nil), stats: #"{"totals":{"entries":2}}"#)]
        let unaware = try SiteResults(fleet: fleet(sums: #"{"turnstile":{"coins":5,"passages":4}}"#), nodes: missed, event: "emergencyOn", published: 11_200_000_000, limitMilliseconds: 1000)
        #expect(unaware.problems == ["gate-2 never took the emergency (no emergencyOn transition in its trace)"])

        let stillOnline = try SiteResults(fleet: fleet(availability: "online"), nodes: nodes, event: "emergencyOn", published: 11_200_000_000, limitMilliseconds: 1000)
        #expect(stillOnline.problems == ["gate-1 is listed online, not offline, after it stopped"])

        let wrongSums = try SiteResults(fleet: fleet(sums: #"{"barrier":{"entries":2},"turnstile":{"coins":6,"passages":4}}"#), nodes: nodes, event: "emergencyOn", published: 11_200_000_000, limitMilliseconds: 1000)
        #expect(wrongSums.problems.count == 1 && wrongSums.problems[0].hasPrefix("fleet's sums"))

        let missing = try SiteResults(fleet: fleet(), nodes: nodes + [SiteResults.Node(number: 3, trace: trace(origin: 0, emergencyAfter: 11.3), stats: #"{"totals":{}}"#)],
                                      event: "emergencyOn", published: 11_200_000_000, limitMilliseconds: 1000)
        #expect(missing.problems.contains { $0.hasPrefix("fleet lists 2 nodes, not the 3 that ran") })
    }

    @Test func aTraceWithoutItsOriginOrAGarbledListingIsRefused() {
        #expect(throws: CheckFailure.self) {
            try SiteResults(fleet: fleet(), nodes: [SiteResults.Node(number: 1, trace: "{\"type\":\"transition\",\"t\":1,\"event\":\"emergencyOn\"}\n", stats: #"{"totals":{}}"#)],
                            event: "emergencyOn", published: 0, limitMilliseconds: 1000)
        }
        #expect(throws: CheckFailure.self) {
            try SiteResults(fleet: "{}", nodes: nodes, event: "emergencyOn", published: 0, limitMilliseconds: 1000)
        }
    }
}
