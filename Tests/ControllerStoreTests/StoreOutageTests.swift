import ControllerFSM
import Dispatch
import Foundation
import PropertyBased
import Synchronization
import Testing
import ControllerHost
import Turnstile
@testable import ControllerStore
import ControllerTestSupport

/// A store that cannot write for a while (a full disk, failing storage) and then can: every
/// counted coin ends up durable, in the database or, at a stop during the outage, in the file of
/// unwritten counts the next start takes in.
@Suite("StoreRecorder: outages that heal")
struct StoreOutageTests {
    /// A fresh database in its own directory, with a session begun: the start of every test
    /// here. The directory is returned so that it lives as long as the test holds it.
    static func storeInSession() throws -> (scratch: ScratchDirectory, path: String, store: TurnstileStore) {
        let scratch = try ScratchDirectory()
        let path = scratch.file()
        let store = try TurnstileStore.open(path: path)
        try store.beginTestSession()
        return (scratch, path, store)
    }

    /// What the recorder's callbacks saw.
    final class Seen: Sendable {
        let failures = Guarded<[StoreError]>([])
        let recoveries = Guarded<[StoreRecovery]>([])
        let commits = Atomic<Int>(0)
    }

    static let fastRetry: ClosedRange<Duration> = .milliseconds(1)...(.milliseconds(8))

    func recorder(
        _ store: TurnstileStore, _ ring: RecordRing<LedgerEntry<TurnstileApplication>>, _ seen: Seen, maximumPending: Int = TurnstileRecorder.maximumPendingEntries
    ) -> TurnstileRecorder {
        TurnstileRecorder(
            store: store, ledger: ring, drainInterval: .milliseconds(1), maximumPendingEntries: maximumPending,
            retryDelays: Self.fastRetry,
            onCommit: { _ in seen.commits.add(1, ordering: .relaxed) },
            onFailure: { error in seen.failures.withLock { $0.append(error) } },
            onRecovered: { recovery in seen.recoveries.withLock { $0.append(recovery) } })
    }

    /// How long `eventually` waits: a failure or recovery is told within a few of the fast
    /// retries (milliseconds); CI runs the AddressSanitizer and ThreadSanitizer test runs at
    /// once on 2 cores (5–20 times slower), and 30 s is far past that. Returns as soon as the
    /// condition holds.
    static let patience: Duration = .seconds(30)
    /// How long the disk stays full to show nothing is committed meanwhile: a slow machine
    /// only makes fewer tries in it, never a commit, so it cannot fail a correct recorder.
    static let nothingCommittedWindow: TimeInterval = 0.05

    /// Waits (generously: a loaded machine) until `condition` holds.
    func eventually(_ what: Comment, _ condition: () -> Bool, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let deadline = ContinuousClock.now + Self.patience
        while !condition() && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(condition(), what, sourceLocation: sourceLocation)
    }

    /// The store's counters against the tape's, kind by kind.
    func expectTotals(_ totals: TurnstileTotals, equal tape: LedgerTape, voided: Int = 0, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for (name, count) in tape.counters.all {
            #expect(totals[name] == count, "\(name)", sourceLocation: sourceLocation)
        }
        #expect(totals["creditsVoidedByRestart"] == voided, sourceLocation: sourceLocation)
        #expect(totals.moneyInvariantHolds, sourceLocation: sourceLocation)
    }

    @Test("a full disk: the write is retried, commits when there is room again, and the recovery is told once")
    func retriesUntilTheDiskHasRoom() throws {
        let session = try Self.storeInSession()
        let store = session.store
        let ring = RecordRing<LedgerEntry<TurnstileApplication>>(capacity: 64)
        let seen = Seen()
        let recorder = recorder(store, ring, seen)
        recorder.start()
        var tape = LedgerTape()
        store.injectedWriteFault.store(SQLiteError.full, ordering: .relaxed)
        // 400 pulses through a ring of 64 while the disk is full: the recorder keeps draining.
        for index in 0..<400 {
            if index % 5 == 4 { tape.push() } else { tape.coin() }
            for entry in tape.take() {
                eventually("the ring has room") { ring.pendingCount < ring.capacity }
                ring.record(entry)
            }
        }
        eventually("the failure was told") { !seen.failures.withLock { $0.isEmpty } }
        #expect(recorder.hasFailed)
        Thread.sleep(forTimeInterval: Self.nothingCommittedWindow)
        #expect(try store.totals()["coins"] == 0, "nothing committed while the disk is full")
        store.injectedWriteFault.store(0, ordering: .relaxed)
        eventually("the recovery was told") { !seen.recoveries.withLock { $0.isEmpty } }
        #expect(!recorder.hasFailed)
        #expect(recorder.stopAndWait() == .complete)
        expectTotals(try store.totals(), equal: tape)
        #expect(ring.lostCount == 0)
        #expect(seen.failures.withLock { $0.count } == 1, "told once per outage, not once per try")
        let failure = try #require(seen.failures.withLock { $0.first })
        #expect("\(failure)".contains("the disk is full"))
        let recovery = try #require(seen.recoveries.withLock { $0.first })
        #expect(seen.recoveries.withLock { $0.count } == 1)
        #expect(recovery.detailLost == 0)
        let rows = try store.database.read { db in try db.int("SELECT COUNT(*) FROM events") }
        #expect(rows == 400, "every step kept its own row")
    }

    @Test("a genuinely full database (SQLite's max_page_count): SQLITE_FULL, then the same batch commits once there is room")
    func genuineSQLiteFull() throws {
        let session = try Self.storeInSession()
        let store = session.store
        let pages = try store.database.writeWithoutTransaction { db in try db.int("PRAGMA page_count") ?? 0 }
        try store.database.writeWithoutTransaction { db in try db.execute("PRAGMA max_page_count = \(pages)") }
        var tape = LedgerTape()
        for _ in 0..<2_000 { tape.coin() }
        let batch = tape.take()
        #expect {
            try store.append(batch)
        } throws: { error in
            guard case .sqlite(_, _, let code, _) = error as? StoreError else { return false }
            return code & 0xFF == SQLiteError.full && "\(error)".contains("the disk is full")
        }
        #expect(try store.totals()["coins"] == 0, "the failed transaction left nothing")
        try store.database.writeWithoutTransaction { db in try db.execute("PRAGMA max_page_count = 1073741823") }
        try store.append(batch)
        expectTotals(try store.totals(), equal: tape)
    }

    @Test("an outage longer than the pending entries: the totals stay exact, the steps without rows are counted")
    func pendingOverflowKeepsTotals() throws {
        let session = try Self.storeInSession()
        let store = session.store
        let ring = RecordRing<LedgerEntry<TurnstileApplication>>(capacity: 16)
        let seen = Seen()
        let recorder = recorder(store, ring, seen, maximumPending: 8)
        recorder.start()
        store.injectedWriteFault.store(SQLiteError.ioError, ordering: .relaxed)
        var tape = LedgerTape()
        for index in 0..<300 {
            if index % 3 == 2 { tape.push() } else { tape.coin() }
            for entry in tape.take() {
                eventually("the ring has room") { ring.pendingCount < ring.capacity }
                ring.record(entry)
            }
        }
        eventually("the ring drained") { ring.pendingCount == 0 }
        store.injectedWriteFault.store(0, ordering: .relaxed)
        eventually("the recovery was told") { !seen.recoveries.withLock { $0.isEmpty } }
        #expect(recorder.stopAndWait() == .complete)
        expectTotals(try store.totals(), equal: tape)
        let recovery = try #require(seen.recoveries.withLock { $0.first })
        #expect(recovery.detailLost == 300 - 8, "all but the 8 kept in full")
        #expect("\(try #require(recovery.lastError))".contains("dmesg"), "an I/O error says to check the disk")
    }

    @Test("a ring that lost its last entries: the closing entry brings their counts")
    func closingEntryBringsLostCounts() throws {
        let session = try Self.storeInSession()
        let store = session.store
        let ring = RecordRing<LedgerEntry<TurnstileApplication>>(capacity: 4)
        var tape = LedgerTape()
        var last: LedgerEntry<TurnstileApplication>?
        for _ in 0..<50 {
            tape.coin()
            tape.push()
            for entry in tape.take() {
                ring.record(entry)
                last = entry
            }
        }
        #expect(ring.lostCount == 96)
        let recorder = recorder(store, ring, Seen())
        recorder.start()
        #expect(recorder.stopAndWait(closingEntry: last) == .complete)
        expectTotals(try store.totals(), equal: tape)
    }

    @Test("stopped while the disk is still full: the counts are kept beside the database, stats shows them, the next run takes them in")
    func stopDuringOutageKeepsTheCounts() throws {
        let session = try Self.storeInSession()
        let path = session.path
        var store = session.store
        var tape = LedgerTape()
        tape.coin()
        tape.push()
        try store.append(tape.take())
        let ring = RecordRing<LedgerEntry<TurnstileApplication>>(capacity: 64)
        let seen = Seen()
        let recorder = recorder(store, ring, seen)
        recorder.start()
        store.injectedWriteFault.store(SQLiteError.full, ordering: .relaxed)
        for _ in 0..<5 { tape.coin() }
        tape.push()
        for entry in tape.take() { ring.record(entry) }
        eventually("the failure was told") { !seen.failures.withLock { $0.isEmpty } }
        let ending = recorder.stopAndWait()
        guard case .unwritten(let counts, let kept, let error, let keepError) = ending else {
            Issue.record("expected unwritten counts, got \(ending)")
            return
        }
        #expect(kept == TurnstileUnwritten.path(forDatabase: path) && keepError == nil)
        #expect("\(error)".contains("the disk is full"))
        #expect(counts.counts == ["coins": 5, "passages": 1])
        #expect(counts.credit == 4 && counts.state == .unlocked)
        #expect(FileManager.default.fileExists(atPath: kept))
        try store.close()

        // stats, before any run: the totals include them, and say so.
        let reader = try TurnstileStore.openForReading(path: path)
        let stats = try reader.stats()
        #expect(stats.unwritten == counts)
        expectTotals(stats.totals, equal: tape)
        #expect(stats.totals.credit == 4)
        try reader.close()
        #expect(FileManager.default.fileExists(atPath: kept), "a reader never writes")

        // The next run takes them in, books the standing credit as voided, and removes the file.
        store = try TurnstileStore.open(path: path)
        #expect(store.pendingUnwritten == counts)
        let begun = try store.beginTestSession(at: Date(timeIntervalSince1970: 1_700_000_100))
        expectTotals(begun, equal: tape, voided: 4)
        expectTotals(try store.totals(), equal: tape, voided: 4)
        #expect(!FileManager.default.fileExists(atPath: kept))
        #expect(store.pendingUnwritten == nil)
        try store.close()
    }

    @Test("counts taken in once: a file left behind by a run that stopped before removing it adds nothing again")
    func takenInOnce() throws {
        let session = try Self.storeInSession()
        let path = session.path
        var store = session.store
        var tape = LedgerTape()
        tape.coin()
        let counts = try #require(try store.unwrittenCounts(of: tape.take()))
        try store.keep(counts)
        let text = try String(contentsOfFile: TurnstileUnwritten.path(forDatabase: path), encoding: .utf8)
        try store.close()
        store = try TurnstileStore.open(path: path)
        try store.beginTestSession(at: Date(timeIntervalSince1970: 1_700_000_100))
        try store.close()
        // As if that run had crashed before removing the file.
        try text.write(toFile: TurnstileUnwritten.path(forDatabase: path), atomically: true, encoding: .utf8)
        store = try TurnstileStore.open(path: path)
        let totals = try store.beginTestSession(at: Date(timeIntervalSince1970: 1_700_000_200))
        #expect(totals["coins"] == 1)
        #expect(totals["creditsVoidedByRestart"] == 1)
        try store.close()
    }

    @Test("a damaged file of unwritten counts is refused by line, and kept", arguments: [
        ("turnstiled unwritten counts v1\nsession 1\ntime 5\nstate unlocked\ncredit 1\ncoins x\n", 6, "coins x is not an integer"),
        ("turnstiled unwritten counts v1\nsession 1\ntime 5\nstate unlocked\ncredit 1\ncoins -3\n", 6, "coins -3 is not an integer in 1..."),
        ("turnstiled unwritten counts v1\nsession 1\ntime 5\nstate nowhere\ncredit 1\n", 4, "unknown state nowhere"),
        ("turnstiled unwritten counts v1\nsession 1\ntime 5\nstate locked\ncredit 0\ndollars 3\n", 6, "unknown name dollars"),
        ("something else\n", 1, "the first line"),
    ])
    func damagedUnwrittenFile(text: String, line: Int, reason: String) throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file()
        try TurnstileStore.open(path: path).close()
        let file = TurnstileUnwritten.path(forDatabase: path)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            try TurnstileStore.open(path: path)
        } throws: { error in
            guard case .invalidUnwrittenFile(let where_, let at, let why) = error as? StoreError else { return false }
            return where_ == file && at == line && why.contains(reason)
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == text)
    }

    /// One step of a random run: a turnstile action, or the store's health changing.
    enum Op {
        case coin, push, expire, emergency(Bool), fail(Int32), heal, pause
    }

    static let faults: [Int32] = [
        SQLiteError.full, SQLiteError.ioError, SQLiteError.ioErrorWrite,
        SQLiteError.ioErrorFsync,
    ]

    static func op(_ kind: Int, _ parameter: Int) -> Op {
        switch kind {
        case 0..<40: .coin
        case 40..<70: .push
        case 70..<75: .expire
        case 75..<80: .emergency(parameter % 2 == 0)
        case 80..<88: .fail(faults[parameter % faults.count])
        case 88..<96: .heal
        default: .pause
        }
    }

    @Test("random coins and pushes over a store that fails at random and heals: every count durable, the outage told and ended")
    func randomOutages() async {
        let ops = zip(Gen.int(in: 0...99), Gen.int(in: 0...7)).array(of: 1...150)
        let settings = zip(Gen.int(in: 2...32), Gen.bool)
        await propertyCheck(count: PropertyCases.count(40), input: zip(ops, settings)) { ops, settings in
            let (maximumPending, healAtEnd) = settings
            do {
                try Self.run(ops.map { Self.op($0.0, $0.1) }, maximumPending: maximumPending, healAtEnd: healAtEnd)
            } catch {
                Issue.record("the run failed: \(error)")
            }
        }
    }

    static func run(_ ops: [Op], maximumPending: Int, healAtEnd: Bool) throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file()
        let store = try TurnstileStore.open(path: path)
        try store.beginTestSession()
        let ring = RecordRing<LedgerEntry<TurnstileApplication>>(capacity: 16)
        let seen = Seen()
        let recorder = StoreOutageTests().recorder(store, ring, seen, maximumPending: maximumPending)
        recorder.start()
        var tape = LedgerTape()
        var last: LedgerEntry<TurnstileApplication>?
        for op in ops {
            switch op {
            case .coin: tape.coin()
            case .push: tape.push()
            case .expire: tape.expire()
            case .emergency(let on): tape.emergency(on)
            case .fail(let code): store.injectedWriteFault.store(code, ordering: .relaxed)
            case .heal: store.injectedWriteFault.store(0, ordering: .relaxed)
            case .pause: Thread.sleep(forTimeInterval: 0.002)
            }
            // As the controller does: a full ring loses the entry (the closing entry makes up).
            for entry in tape.take() {
                ring.record(entry)
                last = entry
            }
        }
        if healAtEnd { store.injectedWriteFault.store(0, ordering: .relaxed) }
        let ending = recorder.stopAndWait(closingEntry: last)
        let failures = seen.failures.withLock { $0.count }
        let recoveries = seen.recoveries.withLock { $0.count }
        if healAtEnd || store.injectedWriteFault.load(ordering: .relaxed) == 0 {
            #expect(ending == .complete)
            #expect(recoveries == failures, "every outage ended, and was told ended")
            #expect(!recorder.hasFailed)
            StoreOutageTests().expectTotals(try store.totals(), equal: tape)
            #expect(try store.totals().credit == tape.credit)
            try store.close()
            return
        }
        #expect(failures >= recoveries, "no recovery without a failure")
        if case .unwritten(_, _, _, let keepError) = ending { #expect(keepError == nil) }
        try store.close()
        // Every count is in the database or in the file, which the next start takes in.
        let next = try TurnstileStore.open(path: path)
        let totals = try next.beginTestSession(at: Date(timeIntervalSince1970: 1_700_000_100))
        StoreOutageTests().expectTotals(totals, equal: tape, voided: tape.credit)
        try next.close()
    }
}
