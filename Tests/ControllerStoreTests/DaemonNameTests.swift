import ControllerHost
import Foundation
import Testing
@testable import ControllerStore

/// The store's messages name the daemon whose database it is: the lamp's (`lamp-keeper`, its own
/// `daemonName`, not its name with a `d`) for the lamp,
/// the turnstile's texts as they were.
@Suite("CountStore: messages name the application's daemon")
struct DaemonNameTests {
    @Test("a missing directory, a held lock, another program's database and a missing file name lamp-keeper")
    func lampErrorsNameItsDaemon() throws {
        let scratch = try ScratchDirectory()
        let nowhere = scratch.path + "/no-such-dir/counts.sqlite"
        let missingDirectory = #expect(throws: StoreError.self) { try CountStore<Lamp>.open(path: nowhere) }
        #expect(missingDirectory == .directoryMissing(path: nowhere, directory: scratch.path + "/no-such-dir", daemon: "lamp-keeper"))
        #expect("\(missingDirectory!)".contains("`install -d -o lamp-keeper -g lamp-keeper \(scratch.path)/no-such-dir`"))

        let first = try CountStore<Lamp>.open(path: scratch.file())
        let inUse = #expect(throws: StoreError.self) { try CountStore<Lamp>.open(path: scratch.file()) }
        #expect(inUse == .inUse(path: scratch.file(), daemon: "lamp-keeper"))
        #expect("\(inUse!)".contains("in use by another lamp-keeper") && "\(inUse!)".contains("`systemctl stop lamp-keeper`"))
        try first.close()

        let foreign = scratch.file("foreign.sqlite")
        try runSQL(foreign, "CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
        let refused = #expect(throws: StoreError.self) { try CountStore<Lamp>.open(path: foreign) }
        #expect(refused == .foreignDatabase(path: foreign, daemon: "lamp-keeper"))
        #expect("\(refused!)".contains("not a lamp-keeper count database (it has tables and no lamp-keeper schema)"))

        let absent = scratch.file("absent.sqlite")
        let missing = #expect(throws: StoreError.self) { try CountStore<Lamp>.openForReading(path: absent) }
        #expect("\(missing!)".contains("(`lamp-keeper run --database \(absent)` creates it)"))
        for error in [missingDirectory, inUse, refused, missing] {
            // The scratch directory's own name says "turnstile": only the message's words count.
            #expect(!"\(error!)".replacingOccurrences(of: scratch.path, with: "").contains("turnstile"), "\(error!)")
        }
    }

    @Test("the turnstile's messages are the texts they were")
    func turnstileTextsUnchanged() throws {
        let scratch = try ScratchDirectory()
        let first = try TurnstileStore.open(path: scratch.file())
        let inUse = #expect(throws: StoreError.self) { try TurnstileStore.open(path: scratch.file()) }
        #expect("\(inUse!)" == "the count database \(scratch.file()) is in use by another turnstiled (it holds the file's lock); "
            + "stop that one first (e.g. `systemctl stop turnstiled`) or give this one another --database")
        try first.close()
    }

    /// Every message that names a daemon names the one given, and none says "turnstile" for
    /// another application, whatever the daemon is called.
    @Test("every store message names the daemon it is given, never the turnstile's", arguments: ["lamp-keeper", "barrierd", "gate-keeperd"])
    func everyMessageNamesItsDaemon(daemon: String) {
        let naming: [StoreError] = [
            .directoryMissing(path: "/p/c", directory: "/p", daemon: daemon), .notWritable(path: "/p/c", what: "/p", daemon: daemon),
            .missing(path: "/p/c", daemon: daemon), .inUse(path: "/p/c", daemon: daemon), .fileReplaced(path: "/p/c", daemon: daemon),
            .foreignDatabase(path: "/p/c", daemon: daemon), .newerSchema(path: "/p/c", unknownMigrations: ["v9"], daemon: daemon),
            .invalidValue(path: "/p/c", table: "t", row: "id 1", column: "c", value: "'a'", expected: "an integer", daemon: daemon),
        ]
        let others: [StoreError] = [
            .notReadable(path: "/p/c"), .notAFile(path: "/p/c"), .corrupt(path: "/p/c", sqlite: "malformed"),
            .invalidRetention(days: 0), .noSession(path: "/p/c"), .counterWentBackwards(path: "/p/c", counter: "n", from: 2, to: 1),
            .invalidUnwrittenFile(path: "/p/u", line: 1, reason: "r"), .unwrittenFileForeign(path: "/p/u", database: "/p/c", session: 1),
            .sqlite(path: "/p/c", operation: "open", code: 14, message: "m"), .sqliteUnavailable(path: "/p/c", reason: "r"), .system(path: "/p/c", operation: "open", errno: EACCES),
        ]
        for error in naming {
            #expect(error.description.contains(daemon), "\(error)")
        }
        for error in naming + others {
            #expect(!error.description.lowercased().contains("turnstile"), "\(error)")
        }
    }

    @Test("the lines' consumer and the unwritten-counts file take the daemon's name, never the application's name with a d")
    func everyPlaceTakesTheDaemonName() {
        #expect(Lamp.board.consumer == "lamp-keeper")
        #expect(UnwrittenCounts<Lamp>.header == "lamp-keeper unwritten counts v1")
    }
}
