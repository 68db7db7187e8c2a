import Foundation
import Testing
@testable import ControllerStore

@Suite("CountStore: damaged and unusable files are refused and kept")
struct StoreIntegrityTests {
    /// A real count database with enough rows to span many pages, closed (so the log is folded
    /// into the file).
    func makeDatabase(at path: String) throws {
        let store = try TurnstileStore.open(path: path)
        try store.beginTestSession()
        var tape = LedgerTape()
        for _ in 0..<3_000 {
            tape.coin()
            tape.push()
        }
        try store.append(tape.take())
        try store.close()
        let log = (try? contents(path + "-wal")) ?? Data()
        #expect(log.isEmpty, "the log was checkpointed into the file")
    }

    func expectRefused(_ path: String, sqliteSaysSomething: Bool = true) throws {
        let before = try contents(path)
        for open in [{ try TurnstileStore.open(path: path) }, { try TurnstileStore.openForReading(path: path) }] {
            let error = #expect(throws: StoreError.self) { _ = try open() }
            guard case .corrupt(let named, let sqlite)? = error else {
                Issue.record("expected .corrupt, got \(String(describing: error))")
                continue
            }
            #expect(named == path)
            #expect(!sqlite.isEmpty)
            let message = "\(error!)"
            #expect(message.contains(path) && message.contains("kept") && message.contains("Move it aside"))
        }
        #expect(try contents(path) == before, "the refused file is left byte for byte")
    }

    @Test("a database truncated mid-file is refused")
    func truncated() throws {
        let scratch = try ScratchDirectory()
        let original = scratch.file("original.sqlite")
        try makeDatabase(at: original)
        let data = try contents(original)
        #expect(data.count > 64 * 1024, "big enough that half of it cuts the tables")
        let damaged = scratch.file()
        try data.prefix(data.count / 2 + 123).write(to: URL(fileURLWithPath: damaged))
        try expectRefused(damaged)
    }

    @Test("a file of garbage, or of text, is refused")
    func garbage() throws {
        let scratch = try ScratchDirectory()
        var generator = SystemRandomNumberGenerator()
        let noise = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try noise.write(to: URL(fileURLWithPath: scratch.file()))
        try expectRefused(scratch.file())
        try Data("coins=12\npassages=9\n".utf8).write(to: URL(fileURLWithPath: scratch.file("text.sqlite")))
        try expectRefused(scratch.file("text.sqlite"))
    }

    @Test("a page overwritten inside a real database is refused")
    func overwrittenPage() throws {
        let scratch = try ScratchDirectory()
        try makeDatabase(at: scratch.file())
        var data = try contents(scratch.file())
        try #require(data.count > 64 * 1024)
        let middle = data.count / 2
        data.replaceSubrange(middle..<(middle + 4096), with: Data(repeating: 0xA5, count: 4096))
        try data.write(to: URL(fileURLWithPath: scratch.file()))
        try expectRefused(scratch.file())
    }

    @Test("another program's SQLite database is refused and left untouched")
    func foreignDatabase() throws {
        let scratch = try ScratchDirectory()
        try runSQL(scratch.file(), "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        let before = try contents(scratch.file())
        #expect(throws: StoreError.foreignDatabase(path: scratch.file(), daemon: "turnstiled")) { try TurnstileStore.open(path: scratch.file()) }
        #expect(try contents(scratch.file()) == before)
    }

    @Test("a missing directory and a missing file are named with the fix")
    func missingPaths() throws {
        let scratch = try ScratchDirectory()
        let nowhere = scratch.path + "/no-such-dir/counts.sqlite"
        let error = #expect(throws: StoreError.self) { try TurnstileStore.open(path: nowhere) }
        #expect(error == .directoryMissing(path: nowhere, directory: scratch.path + "/no-such-dir", daemon: "turnstiled"))
        #expect("\(error!)".contains("install -d"))
        #expect(throws: StoreError.missing(path: scratch.file(), daemon: "turnstiled")) { try TurnstileStore.openForReading(path: scratch.file()) }
        #expect(!FileManager.default.fileExists(atPath: scratch.file()), "reading never creates a database")
        #expect(throws: StoreError.notAFile(path: scratch.path)) { try TurnstileStore.openForReading(path: scratch.path) }
    }

    @Test("a retention under a day is refused")
    func invalidRetention() throws {
        let scratch = try ScratchDirectory()
        #expect(throws: StoreError.invalidRetention(days: 0)) { try TurnstileStore.open(path: scratch.file(), retentionDays: 0) }
        #expect(!FileManager.default.fileExists(atPath: scratch.file()))
    }
}
