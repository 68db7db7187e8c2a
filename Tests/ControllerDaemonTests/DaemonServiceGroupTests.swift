import ControllerTestSupport
import Logging
import ServiceLifecycle
import Testing
import ControllerFSM
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's services as one group: the loop's end is the drain, in the order given; the
/// services alongside serve to the end. And the generic services of the group: signals and
/// systemd.
///
/// Its time limit catches a hang (a lock never released, a service that never stops), not
/// slowness: Swift Testing counts it from the test's start, including time spent waiting for a
/// thread of the cooperative pool — two threads on a 2-core machine, which other suites'
/// synchronous waits (processes, sockets) can hold for minutes under the sanitizers on a loaded
/// machine (a CI run failed three tests of this kind at a 60 s limit). Ten minutes is far past
/// any healthy run and well inside CI's own limit.
@Suite("Daemon service group", .timeLimit(.minutes(Emulation.timeLimitMinutes(10))))
struct DaemonServiceGroupTests {
    /// What the services did, in order. They run at once, on the cooperative threads: behind a
    /// `Guarded`, whose lock ThreadSanitizer sees also when two of them meet (the standard
    /// library's `Mutex` then sleeps on a futex it cannot see).
    final class Journal: Sendable {
        private let entries = Guarded<[String]>([])
        func note(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Runs until the group shuts it down, and notes when.
    struct Part: Service {
        let name: String
        let journal: Journal

        func run() async {
            journal.note("\(name) runs")
            try? await gracefulShutdown()
            journal.note("\(name) stops")
        }
    }

    /// Ends by itself once every part runs, as the event loop does at a stop request.
    struct Loop: Service {
        let journal: Journal
        let parts: Int

        func run() async {
            while journal.all.filter({ $0.hasSuffix(" runs") }).count < parts {
                try? await Task.sleep(for: .milliseconds(1))
            }
            journal.note("loop ends")
        }
    }

    @Test("when the loop ends, the drain's services stop one at a time in their order, then those alongside from the last")
    func drainOrder() async throws {
        let journal = Journal()
        let part = { (name: String) in Part(name: name, journal: journal) }
        try await DaemonServiceGroup.make(
            loop: Loop(journal: journal, parts: 6),
            drain: [part("systemd"), part("report"), part("store"), part("lines")],
            alongside: [part("signals"), part("status")]
        ).run()
        #expect(journal.all.filter { !$0.hasSuffix(" runs") } == [
            "loop ends", "systemd stops", "report stops", "store stops", "lines stops", "status stops", "signals stops",
        ])
    }

    @Test("a service left out (nil) is skipped, in the drain and alongside")
    func absentServices() async throws {
        let journal = Journal()
        let part = { (name: String) in Part(name: name, journal: journal) }
        try await DaemonServiceGroup.make(
            loop: Loop(journal: journal, parts: 3),
            drain: [part("report"), nil, part("lines")],
            alongside: [nil, part("signals")]
        ).run()
        #expect(journal.all.filter { !$0.hasSuffix(" runs") } == ["loop ends", "report stops", "lines stops", "signals stops"])
    }

    @Test("signals: the first stop stops, a second is only logged; a reload reloads until stopping; others are named and ignored")
    func signalService() async {
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        for signal in [SIGUSR1, SIGHUP, SIGTERM, SIGINT, SIGHUP] { continuation.yield(signal) }
        continuation.finish()
        let log = CapturedLog()
        let journal = Journal()
        await SignalService(
            signals: signals, logger: log.logger, usage: "SIGTERM or SIGINT stops it, SIGHUP reloads",
            stop: { journal.note("stop") }, reload: { journal.note("reload") }
        ).run()
        #expect(journal.all == ["reload", "stop"])
        #expect(log.lines == [
            "SIGUSR1 ignored: SIGTERM or SIGINT stops it, SIGHUP reloads",
            "SIGINT: already stopping",
            "SIGHUP: stopping; the board file is not read again",
        ])
    }
}

extension ControlServerTests {
    /// systemd's part of the group. Nested in the control server's suite for its serialization:
    /// the notifier's sends take the faults other tests arm.
    @Suite("systemd service")
    struct SystemdServiceTests {
        @Test("READY=1 with its status when the group runs, STOPPING=1 first when the loop ends")
        func readyThenStopping() async throws {
            let scratch = try ScratchDirectory()
            let systemd = try DatagramReceiver(path: scratch.path + "/notify.sock")
            let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.path])
            let journal = DaemonServiceGroupTests.Journal()
            try await DaemonServiceGroup.make(
                loop: DaemonServiceGroupTests.Loop(journal: journal, parts: 1),
                drain: [
                    SystemdService(notifier: notifier, readyStatus: "running: closed"),
                    DaemonServiceGroupTests.Part(name: "report", journal: journal),
                ],
                alongside: []
            ).run()
            #expect(systemd.next() == "READY=1\nSTATUS=running: closed")
            #expect(systemd.next() == "STOPPING=1\nSTATUS=draining")
            #expect(systemd.next() == nil)
        }
    }
}
