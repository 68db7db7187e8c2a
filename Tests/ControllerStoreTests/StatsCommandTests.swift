import ControllerTestSupport
import ControllerFSM
import Foundation
import Testing
@testable import ControllerStore

/// `turnstiled stats`, run as a user would: the executable `swift build` put beside the tests.
@Suite("turnstiled stats")
struct StatsCommandTests {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func turnstiled(_ arguments: [String]) throws -> Output {
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let executable = runner.deletingLastPathComponent().appendingPathComponent("turnstiled")
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "turnstiled is not built at \(executable.path)")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let stdout = output.fileHandleForReading.readToEndRetryingInterrupts()
        let stderr = errors.fileHandleForReading.readToEndRetryingInterrupts()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Two days of counts: 2024-03-01 with 3 coins and passages, 2024-03-02 with 2 coins, one
    /// of them still credit.
    func database(in scratch: ScratchDirectory) throws -> String {
        let store = try TurnstileStore.open(path: scratch.file())
        try store.beginSession(monotonicOrigin: .zero, wallClockOrigin: Date(timeIntervalSince1970: 1_709_251_200))
        var tape = LedgerTape()
        for _ in 0..<3 {
            tape.coin()
            tape.push()
        }
        tape.time = MachineInstant(nanoseconds: 86_400_000_000_000)
        tape.coin()
        tape.push()
        tape.coin()
        try store.append(tape.take())
        try store.close()
        return scratch.file()
    }

    @Test("prints the days and the totals as a table, and as JSON")
    func tableAndJSON() throws {
        let scratch = try ScratchDirectory()
        let path = try database(in: scratch)
        let table = try Self.turnstiled(["stats", "--database", path])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("day coins passages"))
        #expect(lines.contains("2024-03-01 3 3"))
        #expect(lines.contains("2024-03-02 2 1"))
        #expect(lines.contains("total 5 4"))
        #expect(table.stdout.contains("credit 1"))

        let json = try Self.turnstiled(["stats", "--database", path, "--since", "2024-03-02", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["since"] as? String == "2024-03-02")
        #expect(object["credit"] as? Int == 1)
        #expect(object["moneyBalances"] as? Bool == true)
        #expect((object["totals"] as? [String: Int])?["coins"] == 5)
        let days = try #require(object["days"] as? [[String: Any]])
        #expect(days.map { $0["day"] as? String } == ["2024-03-02"])
        #expect((days.first?["counts"] as? [String: Int])?["coins"] == 2)
    }

    @Test("a bad date exits 2; a missing or damaged database exits 4, named, and is not touched")
    func errors() throws {
        let scratch = try ScratchDirectory()
        let path = try database(in: scratch)
        for bad in ["2024-02-30", "March 1", "2024-3-1"] {
            let run = try Self.turnstiled(["stats", "--database", path, "--since", bad])
            #expect(run.status == 2)
            #expect(run.stderr.contains("invalid --since \"\(bad)\"") && run.stderr.contains("YYYY-MM-DD"))
        }
        let missing = try Self.turnstiled(["stats", "--database", scratch.file("none.sqlite")])
        #expect(missing.status == 4)
        #expect(missing.stderr.contains("no count database at \(scratch.file("none.sqlite"))"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("none.sqlite")))

        let damaged = scratch.file("damaged.sqlite")
        try Data(repeating: 0x5A, count: 100).write(to: URL(fileURLWithPath: damaged))
        let refused = try Self.turnstiled(["stats", "--database", damaged])
        #expect(refused.status == 4)
        #expect(refused.stderr.contains("refusing the count database \(damaged)"))
        #expect(try contents(damaged) == Data(repeating: 0x5A, count: 100))
    }
}

/// `stats` on a file of 0 bytes says it is empty — no count database was ever
/// written there — not that it "has tables and no schema"; a writer still makes it a database.
@Suite("stats on an empty file")
struct EmptyDatabaseFileTests {
    @Test("a reader refuses a 0-byte file as empty, exit 4; a writer makes it a count database")
    func emptyFile() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file()
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: StoreError.empty(path: path, daemon: "turnstiled")) { try TurnstileStore.openForReading(path: path) }
        let stats = try StatsCommandTests.turnstiled(["stats", "--database", path])
        #expect(stats.status == 4)
        #expect(stats.stderr.contains("is empty (0 bytes)") && !stats.stderr.contains("has tables"), "\(stats.stderr)")
        let store = try TurnstileStore.open(path: path)
        try store.close()
        #expect(try TurnstileStore.openForReading(path: path).totals().counters.values.allSatisfy { $0 == 0 })
    }
}
