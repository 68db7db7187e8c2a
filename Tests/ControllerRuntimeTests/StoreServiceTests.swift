import ControllerDaemon
import ControllerFSM
import ControllerHost
import ControllerStore
import ControllerTestSupport
import Foundation
import ServiceLifecycleTestKit
import Testing
import Turnstile
@testable import ControllerRuntime

/// The store as a service of the daemon, below the assembled daemon: the session it begins
/// (what a stopped run left taken in and said), the drain that commits where the controller
/// stood at the stop, and what it says when steps were lost or it cannot begin.
@Suite struct StoreServiceTests {
    typealias App = TurnstileApplication
    let folder: TemporaryDirectory
    let log = CapturedLog()
    let parts: DaemonParts<App>
    var database: String { folder.url.appendingPathComponent("counts.sqlite").path }

    init() throws {
        folder = try TemporaryDirectory()
        parts = try DaemonParts<App>(program: "turnstiled", board: "test", chip: "sim", logger: log.logger)
    }

    /// Where a controller stands after `coins` coins and `passages` passages, `credit` standing.
    func standing(coins: Int, passages: Int, credit: Int, at seconds: Int64) -> LedgerEntry<App> {
        var counters = TurnstileCounters()
        counters.coins = coins
        counters.passages = passages
        return LedgerEntry<App>(time: .zero + .seconds(seconds), state: credit > 0 ? .unlocked : .locked, credit: credit, counters: counters, cause: nil)
    }

    /// A run of the service on `store`: begun, then drained at once with `closing` as where the
    /// controller stood at the stop.
    func run(_ store: CountStore<App>, ledger: RecordRing<LedgerEntry<App>> = RecordRing(capacity: 16), closing: LedgerEntry<App>) async throws {
        let service = try StoreService<App>(
            beginning: store, ledger: ledger, doorbell: Doorbell(), origin: .zero, parts: parts, closingEntry: { closing }, abandon: {})
        await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            await service.run()
        }
    }

    /// The database opened again after `close`. A process another test starts at that moment
    /// holds a copy of every descriptor between its fork and its exec (close-on-exec ones too),
    /// and with it the file's lock: until it execs, the open is refused as "in use". Natively
    /// that is microseconds (glibc's posix_spawn is a vfork); under qemu-user (the aarch64
    /// tests) it is a real fork and a translated exec, long enough to be met. Tried again for up
    /// to `TestTimeouts.handOver`; any other refusal is thrown at once.
    func reopened() async throws -> CountStore<App> {
        let deadline = ContinuousClock.now + TestTimeouts.handOver
        while true {
            do throws(StoreError) {
                return try CountStore<App>.open(path: database)
            } catch {
                guard case .inUse = error, ContinuousClock.now < deadline else { throw error }
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func theDrainCommitsWhereTheControllerStoodAtTheStop() async throws {
        let store = try CountStore<App>.open(path: database)
        try await run(store, closing: standing(coins: 3, passages: 2, credit: 1, at: 5))
        let stats = try store.stats()
        #expect(stats.totals["coins"] == 3)
        #expect(stats.totals["passages"] == 2)
        #expect(stats.totals.gauge("credit") == 1)
        #expect(stats.sessions == 1)
        #expect(parts.status.snapshot().counters["coins"] == 3, "status shows what was committed")
        try store.close()
    }

    @Test func aCreditStandingAtTheLastStopIsVoidedAtTheNextBeginAndSaid() async throws {
        let first = try CountStore<App>.open(path: database)
        try await run(first, closing: standing(coins: 2, passages: 0, credit: 2, at: 1))
        try first.close()

        let second = try await reopened()
        try await run(second, closing: standing(coins: 0, passages: 0, credit: 0, at: 1))
        let totals = try second.totals()
        #expect(totals["creditsVoidedByRestart"] == 2)
        #expect(totals.holds(App.durableInvariants[0]))
        #expect(log.lines.contains { $0.contains("2 credit(s) in all were standing when a run ended; counted as creditsVoidedByRestart") }, "\(log.lines)")
        try second.close()
    }

    @Test func countsAStoppedRunCouldNotWriteAreTakenInAndTheFileRemoved() async throws {
        // A run that began its session (1) and could not write its last counts at the stop.
        let first = try CountStore<App>.open(path: database)
        _ = try first.beginSession(monotonicOrigin: .zero, wallClockOrigin: Date())
        try first.keep(UnwrittenCounts<App>(session: 1, time: 0, state: .locked, gauges: ["credit": 0], counts: ["coins": 4, "passages": 4]))
        try first.close()
        #expect(FileManager.default.fileExists(atPath: first.unwrittenPath))

        let store = try await reopened()
        try await run(store, closing: standing(coins: 0, passages: 0, credit: 0, at: 1))
        #expect(try store.totals()["coins"] == 4)
        #expect(!FileManager.default.fileExists(atPath: store.unwrittenPath))
        #expect(log.lines.contains { $0.contains("took in 8 count(s) a stopped run could not write") && $0.contains(store.unwrittenPath) }, "\(log.lines)")
        try store.close()
    }

    @Test func stepsTheLedgerRingCouldNotKeepAreSaidAtTheStop() async throws {
        let store = try CountStore<App>.open(path: database)
        let ledger = RecordRing<LedgerEntry<App>>(capacity: 2)
        for step in 1...5 { ledger.record(standing(coins: step, passages: 0, credit: step, at: Int64(step))) }
        #expect(ledger.lostCount == 3)
        try await run(store, ledger: ledger, closing: standing(coins: 5, passages: 0, credit: 5, at: 6))
        #expect(try store.totals()["coins"] == 5, "the totals are whole: the entries carry cumulative counters")
        #expect(log.lines.contains("the ledger ring was full for 3 step(s): their counts are in the totals, without their own rows"), "\(log.lines)")
        try store.close()
    }

    @Test func aStoreThatCannotBeginFailsTheSelfTestAndAbandonsTheStart() throws {
        let store = try CountStore<App>.open(path: database)
        try store.close()
        let abandoned = Guarded(false)
        #expect(throws: ControllerExit.storeError) {
            _ = try StoreService<App>(
                beginning: store, ledger: RecordRing(capacity: 16), doorbell: Doorbell(), origin: .zero, parts: parts,
                closingEntry: { standing(coins: 0, passages: 0, credit: 0, at: 0) }, abandon: { abandoned.withLock { $0 = true } })
        }
        #expect(abandoned.withLock { $0 })
        #expect(parts.lifecycle.phase == .stopped)
    }
}
