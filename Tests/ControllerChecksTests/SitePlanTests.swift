import ControllerChecks
import ControllerTestSupport
import Foundation
import Testing

@Suite struct SitePlanTests {
    func spec(_ json: String) throws -> SiteCheckSpec {
        try JSONDecoder().decode(SiteCheckSpec.self, from: Data(json.utf8))
    }

    @Test func trafficIsWholeCyclesThatEndWithinTheSeconds() throws {
        let barrier = try spec("""
            {"app": "barrier", "emergencyState": "emergency", "pause": [6, 14], "settleSeconds": 2,
             "cycle": [{"after": [0, 0], "line": "pulse request"}, {"after": [4, 4], "line": "set loop on"}, {"after": [2, 2], "line": "set loop off"}]}
            """)
        for seed in UInt64(1)...20 {
            let lines = SiteTraffic.script(barrier, seed: seed, seconds: 60).split(separator: "\n")
            #expect(lines.count % 3 == 0 && !lines.isEmpty, "seed \(seed): \(lines)")
            let times = lines.compactMap { Double($0.split(separator: " ")[0]) }
            #expect(times == times.sorted(), "seed \(seed)")
            #expect(times.first.map { $0 >= 0.5 && $0 < 1.5 } == true)
            #expect(times.last.map { $0 + 2 <= 60 } == true, "the last cycle settles within the run")
            for cycle in stride(from: 0, to: lines.count, by: 3) {
                #expect(lines[cycle].hasSuffix(" pulse request") && lines[cycle + 2].hasSuffix(" set loop off"))
                #expect(abs(times[cycle + 1] - times[cycle] - 4) < 0.002)
            }
        }
    }

    @Test func theSameSeedGivesTheSameTrafficAndAnotherSeedOther() throws {
        let turnstile = try spec("""
            {"app": "turnstile", "emergencyState": "emergency", "pause": [0.5, 3],
             "cycle": [{"after": [0, 0], "line": "coin"}, {"after": [0.3, 1.5], "line": "push"}]}
            """)
        #expect(SiteTraffic.script(turnstile, seed: 7, seconds: 30) == SiteTraffic.script(turnstile, seed: 7, seconds: 30))
        #expect(SiteTraffic.script(turnstile, seed: 7, seconds: 30) != SiteTraffic.script(turnstile, seed: 8, seconds: 30))
        #expect(SiteTraffic.script(turnstile, seed: 7, seconds: 0.5).isEmpty, "no cycle fits")
    }

    @Test func aMalformedCycleIsRefused() {
        #expect(throws: DecodingError.self) {
            try spec(#"{"app": "a", "emergencyState": "e", "pause": [3, 1], "cycle": [{"after": [0, 0], "line": "coin"}]}"#)
        }
        #expect(throws: DecodingError.self) {
            try spec(#"{"app": "a", "emergencyState": "e", "pause": [1, 3], "cycle": []}"#)
        }
        #expect(throws: DecodingError.self) {
            try spec(#"{"app": "a", "emergencyState": "e", "pause": [1, 3], "cycle": [{"after": [2, 1], "line": "coin"}]}"#)
        }
    }

    @Test func nodesTakeEveryProductWithASiteEntryInTurn() throws {
        let plan = try SitePlan(nodes: 5, repository: repositoryRoot.path)
        #expect(plan.nodes.map(\.package.product) == ["turnstiled", "barrierd", "turnstiled", "barrierd", "turnstiled"])
        #expect(plan.nodes.map(\.spec.app) == ["turnstile", "barrier", "turnstile", "barrier", "turnstile"])
        #expect(try ProductPackage.all(in: repositoryRoot.path).map(\.product) == ["turnstiled", "barrierd"])
    }
}
