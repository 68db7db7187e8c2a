import ControllerTestSupport
import Foundation
import Testing
import TurnstileTestSupport
import ControllerHost
import Turnstile

/// `turnstiled simulate` as a subprocess: the demo, JSON lines, scenarios from a file or standard
/// input, failed expectations, breakage and seeds, exit statuses.
@Suite("turnstiled simulate (CLI)")
struct TurnstiledSimulateCLITests {
    /// Parses every line of `text` as a JSON object.
    static func jsonLines(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(line)", sourceLocation: sourceLocation)
        }
    }

    static func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    @Test("the demo (the default command) exits 0, visits all five states and prints the counters",
          arguments: [[], ["simulate"]])
    func demoText(arguments: [String]) async throws {
        let run = try await Turnstiled.run(arguments)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        for state in TurnstileMachine.table.atomicStates {
            #expect(run.stdout.contains("→ \(state.name)"), "the demo never entered \(state.name)")
        }
        for counter in TurnstileCounters.names {
            #expect(run.stdout.contains("\(counter) "), "the summary lacks \(counter)")
        }
        #expect(run.stdout.contains("every expect held"))
    }

    @Test("--json: every line is a JSON object; outputs first, transitions visit every state, the summary has every counter")
    func demoJSON() async throws {
        let run = try await Turnstiled.run(["simulate", "--json"])
        #expect(run.status == 0, "\(run)")
        let records = try Self.jsonLines(run.stdout)
        try #require(records.count > 10)

        let initial = records.prefix(OutputRole.allCases.count)
        #expect(initial.allSatisfy { $0["type"] as? String == "output" && Self.number($0["t"]) == 0 },
                "the first records are the outputs' initial values: \(Array(initial))")
        #expect(Set(initial.compactMap { $0["line"] as? String }) == Set(OutputRole.allCases.map(\.rawValue)))

        let transitions = records.filter { $0["type"] as? String == "transition" }
        #expect(Set(transitions.compactMap { $0["to"] as? String }) == Set(TurnstileMachine.table.atomicStates.map(\.name)))
        for transition in transitions {
            #expect(["t", "from", "event", "to"].allSatisfy { transition[$0] != nil }, "incomplete: \(transition)")
        }
        let times = records.compactMap { Self.number($0["t"]) }
        #expect(times == times.sorted(), "records are in time order")
        #expect(Set(records.compactMap { $0["type"] as? String }).isSubset(of: ["output", "transition", "ignored", "summary"]))

        let summaries = records.filter { $0["type"] as? String == "summary" }
        #expect(summaries.count == 1)
        let summary = try #require(records.last)
        #expect(summary["type"] as? String == "summary", "the summary comes last")
        #expect(summary["state"] as? String == "locked")
        let counters = try #require(summary["counters"] as? [String: Any])
        #expect(Set(counters.keys) == Set(TurnstileCounters.names))
        let value = { (name: String) in Int(Self.number(counters[name]) ?? -1) }
        let credit = Int(Self.number(summary["credit"]) ?? -1)
        #expect(value("coins") == value("passages") + value("expiredCredits") + value("coinsOutOfService") + credit)
        #expect(value("coins") == 5 && value("freePassages") == 1 && value("faults") == 2, "the demo's counters: \(counters)")
    }

    @Test("--script - reads the scenario from standard input")
    func scriptFromStandardInput() async throws {
        let run = try await Turnstiled.run(["simulate", "--json", "--script", "-"], stdin: """
            0     coin
            0.5   push
            1     expect state locked
            1     expect counter passages 1
            """)
        #expect(run.status == 0, "\(run)")
        let summary = try #require(try Self.jsonLines(run.stdout).last)
        let counters = try #require(summary["counters"] as? [String: Any])
        #expect(Self.number(counters["passages"]) == 1 && Self.number(counters["coins"]) == 1)
    }

    @Test("--json marks a row that stays in its state as internal, and only that one")
    func internalRowsMarked() async throws {
        let run = try await Turnstiled.run(["simulate", "--json", "--script", "-"], stdin: """
            0     coin
            0.2   coin
            1     end
            """)
        #expect(run.status == 0, "\(run)")
        let transitions = try Self.jsonLines(run.stdout).filter { $0["type"] as? String == "transition" }
        #expect(transitions.map { "\($0["from"]!) \($0["to"]!) \($0["internal"] as? Bool ?? false)" } == [
            "locked unlocked false", "unlocked unlocked true",
        ], "\(transitions)")
    }

    @Test("a failed expect exits 1, reports each failure on standard error and runs to the end",
          arguments: [[], ["--json"]])
    func failedExpect(mode: [String]) async throws {
        let files = try TemporaryDirectory()
        let path = try files.file("fails.scenario", """
            0     coin
            # the turnstile is unlocked, not locked
            1     expect state locked
            1     expect credit 1
            2     expect counter coins 3
            6     end
            """)
        let run = try await Turnstiled.run(["simulate", "--script", path] + mode)
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("\(path): line 3: at 1 s: expected state locked, but the turnstile is unlocked in inService in operating"), "\(run)")
        #expect(run.stderr.contains("\(path): line 5: at 2 s: expected counter coins to be 3, but it is 1"), "\(run)")
        #expect(!run.stderr.contains("line 4"), "the expect that held is not reported")
        #expect(run.stdout.contains("timeout"), "the run went on past the failures to the relock timeout")
        #expect(run.stdout.contains(mode.isEmpty ? "2 expect(s) failed" : #""type":"summary""#))
    }

    @Test("--break-probability: 1 breaks after the first passage, 0 never", arguments: [("1", 0), ("0", 1)] as [(String, Int32)])
    func breakProbability(probability: String, status: Int32) async throws {
        let run = try await Turnstiled.run(["simulate", "--script", "-", "--break-probability", probability],
                                     stdin: "0 coin\n0.5 push\n1 expect state broken\n1 expect counter faults 1\n")
        #expect(run.status == status, "\(run)")
    }

    @Test("--seed: the same seed repeats the run; another moves the contact bounce")
    func seed() async throws {
        let script = "0 coin\n0.5 push\n1 coin\n"
        let first = try await Turnstiled.run(["simulate", "--json", "--script", "-", "--seed", "5"], stdin: script)
        let again = try await Turnstiled.run(["simulate", "--json", "--script", "-", "--seed", "5"], stdin: script)
        let other = try await Turnstiled.run(["simulate", "--json", "--script", "-", "--seed", "6"], stdin: script)
        #expect(first.status == 0 && !first.stdout.isEmpty, "\(first)")
        #expect(first.stdout == again.stdout)
        #expect(first.stdout != other.stdout, "the seed does not reach the bounce generator")
    }

    @Test("a bad command line exits 64 (EX_USAGE) naming the problem", arguments: [
        (["simulate", "--break-probability", "2"], "--break-probability must be between 0 and 1"),
        (["simulate", "--frobnicate"], "--frobnicate"),
        (["graph", "--format", "svg"], "svg"),
    ])
    func usageError(arguments: [String], message: String) async throws {
        let run = try await Turnstiled.run(arguments)
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains(message), "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
    }
}
