import ControllerTestSupport
import TurnstileTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

func parseScenario(_ text: String) throws(ScenarioError) -> Scenario<TurnstileApplication> {
    try Scenario<TurnstileApplication>.parse(text, file: "s.txt", vocabulary: turnstileVocabulary)
}

@Suite("Scenarios: valid forms")
struct ScenarioTests {
    @Test func designExampleParses() throws {
        let scenario = try parseScenario("""
            0.0   coin
            0.5   push
            1.0   expect state locked
            1.0   expect counter passages 1
            7     repair
            20    emergency on
            25    emergency off
            30    end
            """)
        #expect(scenario.file == "s.txt")
        #expect(scenario.steps == [
            ScenarioStep<TurnstileApplication>(time: .zero, line: 1, action: .coin),
            ScenarioStep<TurnstileApplication>(time: .milliseconds(500), line: 2, action: .push),
            ScenarioStep<TurnstileApplication>(time: .seconds(1), line: 3, action: .expectState("locked")),
            ScenarioStep<TurnstileApplication>(time: .seconds(1), line: 4, action: .expectCounter("passages", 1)),
            ScenarioStep<TurnstileApplication>(time: .seconds(7), line: 5, action: .repair),
            ScenarioStep<TurnstileApplication>(time: .seconds(20), line: 6, action: .emergency(on: true)),
            ScenarioStep<TurnstileApplication>(time: .seconds(25), line: 7, action: .emergency(on: false)),
            ScenarioStep<TurnstileApplication>(time: .seconds(30), line: 8, action: .end),
        ])
        #expect(scenario.endTime == .seconds(30))
    }

    @Test(arguments: [
        ("coin", ScenarioAction<TurnstileApplication>.coin),
        ("push", .push),
        ("push hold 35", .pushHold(.seconds(35))),
        ("push hold 0.25", .pushHold(.milliseconds(250))),
        ("repair", .repair),
        ("emergency on", .emergency(on: true)),
        ("emergency off", .emergency(on: false)),
        ("fault", .fault),
        ("expect state outOfOrder", .expectState("outOfOrder")),
        ("expect counter coinsOutOfService 12", .expectCounter("coinsOutOfService", 12)),
        ("expect counter ignored 0", .expectCounter("ignored", 0)),
        ("expect credit 3", .expectCredit(3)),
        ("expect output lock 1", .expectOutput("lock", true)),
        ("expect output inhibit 0", .expectOutput("inhibit", false)),
        ("end", .end),
    ])
    func everyActionForm(line: String, action: ScenarioAction<TurnstileApplication>) throws {
        let scenario = try parseScenario("2 \(line)")
        #expect(scenario.steps == [ScenarioStep<TurnstileApplication>(time: .seconds(2), line: 1, action: action)])
    }

    @Test(arguments: [
        ("0", Duration.zero),
        ("0.1", .milliseconds(100)),
        ("0.3", .milliseconds(300)),
        ("7", .seconds(7)),
        ("1.5", .milliseconds(1500)),
        ("0.000000001", .nanoseconds(1)),
        ("12.345678901", .nanoseconds(12_345_678_901)),
        ("2.50000000000", .milliseconds(2500)),
        ("007", .seconds(7)),
        ("86400", .seconds(86400)),
    ])
    func timesAreExactDecimalSeconds(text: String, expected: Duration) throws {
        #expect(try parseScenario("\(text) coin").steps.first?.time == expected)
    }

    @Test func tenthsAddUpExactly() throws {
        // 0.1 + 0.2 != 0.3 in binary floating point; here each time is exact.
        let times = try parseScenario("0.1 coin\n0.2 coin\n0.3 coin").steps.map(\.time)
        #expect(times[0] + times[1] == times[2])
    }

    @Test func commentsBlankLinesAndSpacingAreIgnored() throws {
        let scenario = try parseScenario(
            "# a whole-line comment\n\n   \n\t0.5\tcoin   # trailing comment\r\n1 expect#glued comment\n"
                .replacingOccurrences(of: "1 expect#glued comment", with: "1   expect   credit   1#glued")
                + "   # indented comment\n2 end\n\n")
        #expect(scenario.steps == [
            ScenarioStep<TurnstileApplication>(time: .milliseconds(500), line: 4, action: .coin),
            ScenarioStep<TurnstileApplication>(time: .seconds(1), line: 5, action: .expectCredit(1)),
            ScenarioStep<TurnstileApplication>(time: .seconds(2), line: 7, action: .end),
        ])
    }

    @Test func windowsLineEndsCountAsOneLine() throws {
        let scenario = try parseScenario("0 coin\r\n\r\n1 push\r\n")
        #expect(scenario.steps.map(\.line) == [1, 3])
    }

    @Test func equalTimesKeepFileOrder() throws {
        let scenario = try parseScenario("1 coin\n1 push\n1 expect state locked")
        #expect(scenario.steps.map(\.line) == [1, 2, 3])
    }

    @Test(arguments: [
        ("", Duration.seconds(1)),
        ("# only a comment\n", .seconds(1)),
        ("0 coin\n2.5 push", .milliseconds(3500)),
        ("0 coin\n4 end", .seconds(4)),
        ("0 coin\n0 end", .zero),
        ("3 push hold 40", .seconds(44)),
        ("3 push hold 40\n10 coin", .seconds(44)),
        ("3 push hold 2\n10 coin", .seconds(11)),
        ("3 push hold 40\n10 end", .seconds(10)),
    ])
    func endTimeIsEndOrOneSecondAfterTheLastAction(text: String, expected: Duration) throws {
        #expect(try parseScenario(text).endTime == expected)
    }

    @Test func loadReadsAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID()).txt").path
        try "0 coin\n1 expect credit 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scenario = try Scenario<TurnstileApplication>.load(path: path, vocabulary: turnstileVocabulary)
        #expect(scenario.file == path)
        #expect(scenario.steps.count == 2)
    }

    @Test func dashReadsStandardInput() throws {
        // Standard input is borrowed for the duration of the test: a pipe stands in for it, and
        // the runner's own descriptor is put back afterwards.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let script = Array("0 coin\n0.5 push\n".utf8)
        #expect(write(ends[1], script, script.count) == script.count)
        close(ends[1])
        let saved = dup(STDIN_FILENO)
        dup2(ends[0], STDIN_FILENO)
        close(ends[0])
        defer {
            dup2(saved, STDIN_FILENO)
            close(saved)
        }
        let scenario = try Scenario<TurnstileApplication>.load(path: "-", vocabulary: turnstileVocabulary)
        #expect(scenario.file == "<stdin>")
        #expect(scenario.steps.map(\.action) == [.coin, .push])
    }

    @Test func loadNamesAMissingFile() {
        #expect {
            try Scenario<TurnstileApplication>.load(path: "/nonexistent/s.txt", vocabulary: turnstileVocabulary)
        } throws: { error in
            (error as? ScenarioError)?.description == "/nonexistent/s.txt: cannot open: No such file or directory"
        }
    }
}
