import ControllerDaemon
import ControllerMQTT
import ControllerTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An idle `turnstiled run` with everything on — the count store, the control
/// socket, HTTP and MQTT, under a systemd watchdog — wakes only for the watchdog's ping and
/// MQTT's keepalive (at most once a second), counted over a minute as the context switches of all
/// its threads (docs/performance.md, "Idle wake-ups"; scripts/idle-wakeups.sh measures the same
/// by hand).
///
/// A subprocess, not the daemon in-process (`Daemon.serve`, as ControllerRuntimeTests run it):
/// in-process, the daemon's tasks run on the test runner's executor, shared with every test running beside this one; only a process of its own has threads
/// that are the daemon's alone.
///
/// Voluntary switches only. A voluntary switch is a thread blocking — `ppoll`, a futex, `read`,
/// a sleep — so each is one of the daemon's own wake-ups: a thread goes back to sleep only
/// after it woke. A nonvoluntary one is a thread preempted while it ran, which other load on
/// the machine causes (CI runs two test runs at once on 2 cores); counting those would make
/// the test measure its neighbours. Load cannot add voluntary switches to an idle thread, only
/// move them in time, which the window's edges allow for (``edgeAllowance``).
@Suite(
    "turnstiled run: idle wake-ups with store, control socket, HTTP and MQTT (CLI, real mosquitto)",
    .enabled(if: Broker.enabled, "mosquitto, openssl or libmosquitto is not installed"))
struct TurnstiledIdleWakeUpsCLITests {
    /// The window: long enough to take in two of MQTT's keepalive periods.
    static let window: Duration = .seconds(60)
    /// The daemon's own wake-ups in a window, besides the keepalive's and the watchdog's: none
    /// is expected (its tasks run on NIO's event loops, which sleep until there is work, not on
    /// libdispatch's pool, whose monitor fires every second: `DaemonExecutor`); a few are
    /// allowed for what a machine may do once in a while (a thread migrated, a page fault that
    /// sleeps). The bound, one a second, is 60.
    static let ownAllowance = 5
    /// MQTT's keepalive: the client's network thread wakes to send PINGREQ after a period with
    /// nothing sent, and again when PINGRESP arrives; a window holds at most one period more
    /// than it spans.
    static let keepaliveAllowance = 2 * (Int(window.components.seconds) / Int(MQTTLimits.defaultKeepAliveSeconds) + 1)
    /// systemd's watchdog, as a unit's `WatchdogSec=10`: the event loop wakes to send
    /// `WATCHDOG=1` twice a period (and nothing else may wake with it: a turn that changes
    /// nothing leaves the drainers asleep).
    static let watchdogMicroseconds = 10_000_000
    static let watchdogAllowance = Int(window.components.seconds) * 2_000_000 / watchdogMicroseconds + 1
    /// A periodic wake-up can fall just inside either edge of the window: one each.
    static let edgeAllowance = 2
    static var bound: Int {
        ownAllowance + keepaliveAllowance + watchdogAllowance + edgeAllowance
    }

    /// How the start-up's work is waited out before the count begins. First its timers, which
    /// fire once whatever happens: readiness' patience (`ReadinessGate`, on an event loop's
    /// timer that the gate's opening cancels), the MQTT claim's 3 s for another instance and 5 s
    /// for its own (`SiteLimits`).
    static let startUpTimers: Duration = ReadinessGate.patience + .seconds(1)
    /// Then windows of `quietWindow` until one is quiet (a slow machine's start-up takes
    /// longer), at most `quietWindows` of them: a daemon that never goes quiet is then measured
    /// all the same, and fails.
    static let quietWindow: Duration = .seconds(2)
    static let quietWindows = 15
    /// A quiet window: a keepalive's two wake-ups and a watchdog's ping.
    static var quietBound: Int { 2 + 1 }

    #if CONTROLLERFSM_SANITIZED
    // An instrumented build's wake-ups are not the product's: ThreadSanitizer's runtime has a
    // thread of its own in the daemon that wakes ten times a second. Under a sanitizer
    // (scripts/sanitize.sh defines this) the test checks behaviour only: everything asleep
    // without a timeout is woken by the coin.
    static let measures = false
    #else
    static let measures = true
    #endif

    /// One thread's name and its context switches so far.
    struct ThreadSwitches {
        var name: String
        var voluntary: Int
        var nonvoluntary: Int
    }

    /// Every thread of `pid` now, by its id.
    static func threads(of pid: Int32) -> [Int: ThreadSwitches] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var threads: [Int: ThreadSwitches] = [:]
        for task in tasks {
            guard let id = Int(task), let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            var switches = ThreadSwitches(name: "?", voluntary: 0, nonvoluntary: 0)
            for line in status.split(separator: "\n") {
                let fields = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard fields.count == 2 else { continue }
                switch fields[0] {
                case "Name": switches.name = fields[1]
                case "voluntary_ctxt_switches": switches.voluntary = Int(fields[1]) ?? 0
                case "nonvoluntary_ctxt_switches": switches.nonvoluntary = Int(fields[1]) ?? 0
                default: break
                }
            }
            threads[id] = switches
        }
        return threads
    }

    /// What each thread did between two snapshots: a thread started in between counts from 0;
    /// one that ended in between is in neither.
    static func difference(_ before: [Int: ThreadSwitches], _ after: [Int: ThreadSwitches]) -> [Int: ThreadSwitches] {
        var difference: [Int: ThreadSwitches] = [:]
        for (id, now) in after {
            difference[id] = ThreadSwitches(
                name: now.name, voluntary: now.voluntary - (before[id]?.voluntary ?? 0),
                nonvoluntary: now.nonvoluntary - (before[id]?.nonvoluntary ?? 0))
        }
        return difference
    }

    static func voluntary(_ threads: [Int: ThreadSwitches]) -> Int { threads.values.reduce(0) { $0 + $1.voluntary } }

    /// `reporter 0 (0)`, one per thread, the most wakeful first: what a failure shows.
    static func breakdown(_ threads: [Int: ThreadSwitches]) -> String {
        threads.sorted { ($0.value.voluntary, $1.key) > ($1.value.voluntary, $0.key) }
            .map { "\($0.value.name) [\($0.key)] \($0.value.voluntary) (\($0.value.nonvoluntary) nonvoluntary)" }
            .joined(separator: "; ")
    }

    /// Waits `duration`, reading what the daemon tells systemd meanwhile as systemd would (a
    /// datagram socket's queue holds ten: unread, the daemon's sends would fail, and it would
    /// wake to report that); the `WATCHDOG=1`s it read.
    static func listen(_ listener: UncheckedListener, for duration: Duration) async throws -> Int {
        let end = ContinuousClock.now + duration
        return try await offThePool {
            var pings = 0
            _ = listener.listener.receive(until: end) { message in
                if message.split(separator: "\n").contains("WATCHDOG=1") { pings += 1 }
                return false
            }
            return pings
        }
    }

    /// The listener, read by one thread at a time (`listen` awaits each).
    struct UncheckedListener: @unchecked Sendable { let listener: NotifyListener }

    @Test("idle over a minute with store, control socket, HTTP, MQTT and a watchdog: no wake-ups but the watchdog's and the keepalive's; a coin after the quiet is reported, committed and published")
    func idleWakeUps() async throws {
        try await Broker.with { broker in
            let directory = try TemporaryDirectory()
            let socket = directory.url.appendingPathComponent("control.sock").path
            let database = directory.url.appendingPathComponent("counts.sqlite").path
            let notify = directory.url.appendingPathComponent("notify.sock").path
            let systemd = UncheckedListener(listener: try NotifyListener(path: notify))
            let (watcher, log) = try await SiteMQTTCLITests.watcher(broker, id: "idle-watch", ["nodes/node1/events"])
            defer { watcher.stop() }
            let daemon = try BackgroundTurnstiled(
                [
                    "run", "--board", repositoryPath("boards/sim.toml"), "--json", "--http", "127.0.0.1:0", "--database", database,
                    "--control-socket", socket, "--mqtt", "mqtt://127.0.0.1:\(broker.plainPort)", "--mqtt-prefix", "nodes",
                    "--mqtt-node", "node1", "--mqtt-username", "node1", "--mqtt-password-file", broker.file("node1.password"),
                ],
                environment: ["NOTIFY_SOCKET": notify, "WATCHDOG_USEC": "\(Self.watchdogMicroseconds)"])
            defer { daemon.send(SIGKILL) }
            try await SiteMQTTCLITests.waitReady(daemon)
            let connected = await daemon.wait(for: TestTimeouts.daemon) { $0.stderr.contains("MQTT: connected") }
            try #require(connected, "\(daemon.description)")

            _ = try await Self.listen(systemd, for: Self.startUpTimers)
            var quiet: [Int] = []
            for _ in 0..<Self.quietWindows {
                let before = Self.threads(of: daemon.processIdentifier)
                _ = try await Self.listen(systemd, for: Self.quietWindow)
                quiet.append(Self.voluntary(Self.difference(before, Self.threads(of: daemon.processIdentifier))))
                if quiet.last! <= Self.quietBound || !Self.measures { break }
            }
            if Self.measures {
                let before = Self.threads(of: daemon.processIdentifier)
                let pings = try await Self.listen(systemd, for: Self.window)
                let woke = Self.difference(before, Self.threads(of: daemon.processIdentifier))
                let figure = "\(Self.voluntary(woke)) wake-ups in \(Self.window), at most \(Self.bound), \(pings) WATCHDOG=1 among them; by thread: \(Self.breakdown(woke))"
                print("idle: \(figure)")
                #expect(pings > 0, "the watchdog was fed: \(figure)")
                #expect(Self.voluntary(woke) <= Self.bound, "\(figure); the quiet windows before: \(quiet)")
            }

            // Everything asleep without a timeout is woken by what it waits for.
            let pulse = try await Turnstiled.run(["ctl", "--socket", socket, "pulse", "coin"])
            #expect(pulse.status == 0, "\(pulse)")
            let reported = await daemon.wait(for: TestTimeouts.daemon) { daemon in
                daemon.records.contains { $0["type"] as? String == "transition" && $0["event"] as? String == "coin" }
            }
            #expect(reported, "the coin's transition was reported: \(daemon.description)")
            let published = await log.first(within: TestTimeouts.daemon) { $0.receivedMessage?.topic == "nodes/node1/events" }
            #expect(published != nil, "the coin was published: \(daemon.description)")
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit(timeout: TestTimeouts.daemon) == 0, "\(daemon.description)")
            let stats = try await Turnstiled.run(["stats", "--database", database, "--json"])
            #expect(stats.stdout.contains(#""coins":1"#), "the coin is durable: \(stats)")
        }
    }
}
