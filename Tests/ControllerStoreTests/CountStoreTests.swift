import ControllerFSM
import Foundation
import Testing
import ControllerHost
import Turnstile
import TurnstileTestSupport
@testable import ControllerStore

@Suite("CountStore: recording")
struct CountStoreTests {
    @Test("a new file gets the schema, WAL and synchronous FULL")
    func schemaAndPragmas() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        let (journal, tables) = try store.database.read { db in
            (try db.value("PRAGMA journal_mode")?.text,
             try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].text })
        }
        #expect(journal == "wal")
        let writerSynchronous = try store.database.write { db in try db.int("PRAGMA synchronous") }
        #expect(writerSynchronous == 2, "FULL is 2")
        #expect(Set(tables).isSuperset(of: ["events", "daily_totals", "totals", "sessions"]))
        #expect(try store.totals() == .zero)
    }

    @Test("each counter's increase is one row in the state before the step, and in the totals")
    func counterDiffsBecomeRows() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        let origin = Date(timeIntervalSince1970: 1_700_000_000)
        try store.beginTestSession(at: origin)
        var tape = LedgerTape()
        tape.coin()
        tape.coin()
        tape.push()
        tape.push()
        tape.push()
        tape.emergency(true)
        tape.push()
        tape.emergency(false)
        let totals = try store.append(tape.take())

        let rows = try store.database.read { db in
            try db.rows("SELECT time, kind, amount, state FROM events ORDER BY id")
                .map { "\($0.string("kind")!):\($0.int("amount")!)@\($0.string("state")!)" }
        }
        #expect(rows == [
            "coins:1@locked", "coins:1@unlocked", "passages:1@unlocked", "passages:1@unlocked",
            "forcedPushes:1@locked", "emergencyOn:1@locked", "ignored:1@emergency", "emergencyOff:1@emergency",
        ])
        let firstTime = try store.database.read { db in try db.value("SELECT MIN(time) FROM events")?.integer }
        let expectedFirstTime: Int64 = 1_700_000_000_000_000_000 + 1_000 + 1_000_000
        #expect(firstTime == expectedFirstTime, "monotonic time mapped through the session's origin")
        #expect(totals["coins"] == 2)
        #expect(totals["passages"] == 2)
        #expect(totals["forcedPushes"] == 1)
        #expect(totals["ignored"] == 1)
        #expect(totals["emergencyOn"] == 1)
        #expect(totals["emergencyOff"] == 1)
        #expect(totals.state == .locked)
        #expect(totals.credit == 0)
        #expect(totals.moneyInvariantHolds)
        #expect(try store.totals() == totals, "what append returns is what the file holds")
    }

    @Test("entries missing between two (a ring overflow) lose no count")
    func gapsKeepTotals() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        try store.beginTestSession()
        var tape = LedgerTape()
        for _ in 0..<10 {
            tape.coin()
            tape.push()
        }
        tape.coin()
        var entries = tape.take()
        // Keep every third entry: the store sees jumps of several counts at once.
        entries = entries.enumerated().filter { $0.offset % 3 == 2 || $0.offset == entries.count - 1 }.map(\.element)
        let totals = try store.append(entries)
        #expect(totals["coins"] == 11)
        #expect(totals["passages"] == 10)
        #expect(totals.credit == 1)
        #expect(totals.moneyInvariantHolds)
        let rowSum = try store.database.read { db in
            try db.int("SELECT SUM(amount) FROM events WHERE kind = 'coins'")
        }
        #expect(rowSum == 11)
    }

    @Test("credit standing when the daemon stopped is booked as voided, and the money balances")
    func creditVoidedOnRestart() throws {
        let scratch = try ScratchDirectory()
        do {
            let store = try TurnstileStore.open(path: scratch.file())
            try store.beginTestSession()
            var tape = LedgerTape()
            tape.coin()
            tape.coin()
            tape.coin()
            tape.push()
            let before = try store.append(tape.take())
            #expect(before.credit == 2)
            #expect(before.moneyInvariantHolds)
            // A crash: no endSession, no close.
        }
        let store = try TurnstileStore.open(path: scratch.file())
        #expect(try store.totals().credit == 2, "the file still knows the credit that stood")
        let after = try store.beginTestSession(at: Date(timeIntervalSince1970: 1_700_000_100))
        #expect(after["creditsVoidedByRestart"] == 2)
        #expect(after.credit == 0)
        #expect(after.state == .locked)
        #expect(after.moneyInvariantHolds)
        #expect(try store.totals() == after)

        // The next run counts from zero again; totals add up over both runs.
        var second = LedgerTape()
        second.coin()
        second.push()
        let end = try store.append(second.take())
        #expect(end["coins"] == 4)
        #expect(end["passages"] == 2)
        #expect(end.moneyInvariantHolds)
        // A clean stop with no credit voids nothing.
        try store.endSession(at: Date(timeIntervalSince1970: 1_700_000_200))
        let third = try store.beginTestSession(at: Date(timeIntervalSince1970: 1_700_000_300))
        #expect(third["creditsVoidedByRestart"] == 2)
        #expect(third.moneyInvariantHolds)
        let voidRow = try store.database.read { db in
            try db.row("SELECT state, amount, session FROM events WHERE kind = ?", ["creditsVoidedByRestart"])
        }
        #expect(voidRow?["state"] == .text("unlocked"))
        #expect(voidRow?["amount"] == .integer(2))
        #expect(voidRow?["session"] == .integer(2))
    }

    @Test("closing and reopening keeps every total, credit, state and the last event time")
    func reopenKeepsTotals() throws {
        let scratch = try ScratchDirectory()
        var store = try TurnstileStore.open(path: scratch.file())
        try store.beginTestSession()
        var tape = LedgerTape()
        for index in 0..<50 {
            tape.coin()
            if index % 3 != 0 { tape.push() } else { tape.expire() }
        }
        tape.coin()
        let committed = try store.append(tape.take())
        #expect(committed.lastEventUnixNanoseconds != nil)
        try store.endSession(at: Date(timeIntervalSince1970: 1_700_001_000))
        try store.close()
        store = try TurnstileStore.open(path: scratch.file())
        #expect(try store.totals() == committed)
        let reader = try TurnstileStore.openForReading(path: scratch.file())
        #expect(try reader.totals() == committed)
    }

    @Test("a counter going back within a session is refused and nothing of the batch is written")
    func counterWentBackwards() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        try store.beginTestSession()
        var tape = LedgerTape()
        tape.coin()
        tape.coin()
        try store.append(tape.take())
        var restarted = LedgerTape()
        restarted.push()
        restarted.coin()
        #expect(throws: StoreError.counterWentBackwards(path: scratch.file(), counter: "coins", from: 2, to: 0)) {
            try store.append(restarted.take())
        }
        #expect(try store.totals()["coins"] == 2)
        #expect(try store.totals()["forcedPushes"] == 0)
    }

    @Test("a second writer is refused while the first holds the file; a reader is not")
    func oneWriterAtATime() throws {
        let scratch = try ScratchDirectory()
        let first = try TurnstileStore.open(path: scratch.file())
        try first.beginTestSession()
        let error = #expect(throws: StoreError.inUse(path: scratch.file(), daemon: "turnstiled")) { try TurnstileStore.open(path: scratch.file()) }
        #expect("\(error!)".contains("another turnstiled"))
        #expect(try TurnstileStore.openForReading(path: scratch.file()).totals() == .zero)
        try first.close()
        let second = try TurnstileStore.open(path: scratch.file())
        #expect(try second.totals() == .zero)
    }

    @Test("a lock another open file holds for a moment (a forked child's, until it execs) is waited for, not called another daemon")
    func aLockHeldForAMomentIsWaitedFor() throws {
        let scratch = try ScratchDirectory()
        try TurnstileStore.open(path: scratch.file()).close()
        // What a child forked between the store's close and its reopening holds: the lock of an
        // open file description the parent no longer has.
        let holder = open(scratch.file(), O_RDWR | O_CLOEXEC)
        try #require(holder >= 0 && flock(holder, LOCK_EX | LOCK_NB) == 0)
        // The holder lets go a quarter of the store's wait (1 s) after this; the open waits at
        // least that long, and succeeds if the release comes within the 3/4 left, which is the
        // room for a loaded machine to run the release late.
        let holdMilliseconds = StoreLimits.writeLockWaitMilliseconds / 4
        let released = DispatchSemaphore(value: 0)
        // Taken before the release is scheduled, so the release is at least `hold` after it
        // however late the test thread runs (taken after, a pause between the two lines made the
        // measured wait shorter than the hold).
        let started = ContinuousClock.now
        DispatchQueue(label: "lock holder").asyncAfter(deadline: .now() + .milliseconds(holdMilliseconds)) {
            close(holder)
            released.signal()
        }
        let store = try TurnstileStore.open(path: scratch.file())
        #expect(ContinuousClock.now - started >= .milliseconds(holdMilliseconds))
        released.wait()
        try store.close()
    }

    @Test("a file deleted under the store stops the recording with a message")
    func fileDeleted() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        try store.beginTestSession()
        var tape = LedgerTape()
        tape.coin()
        try store.append(tape.take())
        try FileManager.default.removeItem(atPath: scratch.file())
        tape.push()
        let error = #expect(throws: StoreError.fileReplaced(path: scratch.file(), daemon: "turnstiled")) { try store.append(tape.take()) }
        #expect("\(error!)".contains("deleted or replaced"))
    }

    @Test("appending before a session began is refused")
    func noSession() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        var tape = LedgerTape()
        tape.coin()
        #expect(throws: StoreError.noSession(path: scratch.file())) { try store.append(tape.take()) }
    }
}

@Test("the store's kinds are the turnstile's counters in their order, then its emergency changes and its voided credit; each counter is booked under its own name")
func kindsFollowTheDeclaration() throws {
    #expect(TurnstileStore.kinds == TurnstileCounters.names + ["emergencyOn", "emergencyOff", "creditsVoidedByRestart"])
    var counters = TurnstileCounters()
    counters.coins = 1; counters.passages = 2; counters.forcedPushes = 3; counters.expiredCredits = 4
    counters.faults = 5; counters.coinsOutOfService = 6; counters.repairs = 7; counters.freePassages = 8
    counters.ignored = 9
    let scratch = try ScratchDirectory()
    let store = try TurnstileStore.open(path: scratch.file())
    try store.beginTestSession()
    let totals = try store.append([LedgerEntry<TurnstileApplication>(
        time: MachineInstant(nanoseconds: 1_000), state: .locked, credit: 0, counters: counters, cause: nil)])
    for (name, value) in counters.all { #expect(totals[name] == value, "\(name)") }
}

/// The last event's time is the last *counted* event's — a store that never
/// counted anything has none (the site's retained counters then say `lastEvent` null, not the
/// start time).
@Suite("CountStore: the last event is the last counted one")
struct LastCountedEventTests {
    @Test("a session that counted nothing has no last event, written or read back; the first coin sets it")
    func nothingCounted() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        let started = try store.beginTestSession()
        #expect(started.lastEventUnixNanoseconds == nil)
        var tape = LedgerTape()
        tape.push()  // a forced push: counted
        let counted = try store.append(tape.take())
        #expect(counted.lastEventUnixNanoseconds != nil)
        try store.close()
        let fresh = try ScratchDirectory()
        let other = try TurnstileStore.open(path: fresh.file())
        _ = try other.beginTestSession()
        try other.close()
        #expect(try TurnstileStore.openForReading(path: fresh.file()).totals().lastEventUnixNanoseconds == nil)
        #expect(try TurnstileStore.openForReading(path: scratch.file()).totals().lastEventUnixNanoseconds == counted.lastEventUnixNanoseconds)
    }
}
