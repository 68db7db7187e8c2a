import ControllerFSM
import Dispatch
import Foundation
import Testing
import Turnstile
@testable import ControllerDaemon

/// What wakes the threads that report status while the daemon is idle: a change of what they
/// tell, and nothing else (the event loop publishes after every turn, changed or not).
@Suite("StatusChanges: what wakes the reporters of status")
struct StatusChangesTests {
    typealias Hub = StatusHub<TurnstileApplication>

    /// A thread asleep with no timeout is woken within this: milliseconds, or seconds for a
    /// descheduled thread under a sanitizer on a loaded machine. A missed ring sleeps for ever.
    static let patience: Double = 60

    @Test("a turn that changed nothing a watcher tells notes nothing; the state and the event count are not watched")
    func idleTurnsNoteNothing() {
        let hub = Hub(board: "sim", chip: "sim", inbox: nil)
        hub.publishLoop(state: .locked, events: 0, lostEdges: 0)
        let before = hub.changes.count
        for turn in 0..<100 { hub.publishLoop(state: turn % 2 == 0 ? .locked : .unlocked, events: turn, lostEdges: 0) }
        #expect(hub.changes.count == before)
    }

    @Test("a lost edge, an input's level, an output held, a lost send, a phase, the site: each noted once")
    func eachWatchedChangeIsNoted() {
        let hub = Hub(board: "sim", chip: "sim", inbox: nil)
        hub.publishLoop(state: .locked, events: 0, lostEdges: 0)
        var count = hub.changes.count
        func expectNoted(_ what: String, _ change: () -> Void, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
            change()
            #expect(hub.changes.count == count + 1, "\(what) was noted", sourceLocation: sourceLocation)
            count = hub.changes.count
            change()
            #expect(hub.changes.count == count, "\(what) again changes nothing", sourceLocation: sourceLocation)
        }
        expectNoted("a lost edge") { hub.publishLoop(state: .locked, events: 1, lostEdges: 1) }
        expectNoted("an input's level") { hub.publishLoop(state: .locked, events: 1, lostEdges: 1, inputsOn: 1) }
        expectNoted("an output held") { hub.publishLoop(state: .locked, events: 1, lostEdges: 1, outputOverrides: 1, overrideCodes: 2, inputsOn: 1) }
        expectNoted("a lost send") {
            hub.publishLoop(state: .locked, events: 1, lostEdges: 1, outputOverrides: 1, overrideCodes: 2, inputsOn: 1, droppedSends: 1)
        }
        expectNoted("a trace loss") { hub.publishTransitions([], traceLosses: 3) }
        let site = SiteSnapshot(broker: "mqtt://127.0.0.1", node: "node1", connected: true, outboxDepth: 0, deliveredSequence: 0)
        expectNoted("the site") { hub.publishSite(site) }
        hub.publishPhase(.degraded, degradedReason: "the count store cannot write")
        #expect(hub.changes.count == count + 1, "a phase is always noted")
    }

    @Test("systemd's notifier notes a message it could not send")
    func notifierFailureIsNoted() throws {
        let changes = StatusChanges()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("status-changes-\(UUID().uuidString)")
        // A socket path where nothing listens: every send fails.
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": directory.appendingPathComponent("notify").path], changes: changes)
        let before = changes.count
        notifier.status("running")
        #expect(notifier.failedSends > 0)
        #expect(changes.count > before)
    }

    @Test("a watcher asleep with no timeout is woken by a change noted on another thread")
    func watcherAsleepIsWoken() {
        let hub = Hub(board: "sim", chip: "sim", inbox: nil)
        let doorbell = Doorbell()
        hub.changes.watch(with: doorbell)
        let seen = hub.changes.count
        let woken = DispatchSemaphore(value: 0)
        let asleep = DispatchSemaphore(value: 0)
        Thread {
            asleep.signal()
            while hub.changes.count == seen {
                doorbell.sleep(nanoseconds: nil) { hub.changes.count != seen }
            }
            woken.signal()
        }.start()
        asleep.wait()
        hub.publishLoop(state: .locked, events: 0, lostEdges: 1)
        #expect(woken.wait(timeout: .now() + Self.patience) == .success, "the watcher sleeps on")
    }
}
