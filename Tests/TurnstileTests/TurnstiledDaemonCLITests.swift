import ControllerFSMSim
import ControllerTestSupport
import TurnstileTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `turnstiled run` on the simulated board as a supervisor sees it: a stop signal leaves the
/// lock at the fail-mode level, SIGHUP takes new timings (and refuses new wiring), sd_notify
/// speaks on $NOTIFY_SOCKET, and a recording replays to the same end in `simulate`.
@Suite("turnstiled run as a daemon: signals, sd_notify, record and replay (CLI)")
struct TurnstiledDaemonCLITests {
    /// A start, a drain, a reply: waited for, never slept (see `TestTimeouts.daemon`).
    static let patience: Duration = TestTimeouts.daemon
    /// How long a daemon must go on running after a refused reload, to show the refusal did not
    /// end it. A slow machine only shortens what the window covers (a late exit would be
    /// missed), never fails a daemon that runs on.
    static let stillRunningWindow: TimeInterval = 0.2
    /// Within which 3 WATCHDOG=1 must come with WATCHDOG_USEC=200000. At the expected pace (one
    /// every 100 ms) the three take 0.2–0.3 s, which leaves a daemon descheduled on a loaded
    /// machine 1.7 s of room (its watchdog is a tiny write, not slowed by a sanitizer); a daemon
    /// that sends none, or one a second or slower (WATCHDOG_USEC read in the wrong unit), fails.
    static let watchdogWindow: Duration = .seconds(2)
    /// How long the stop waits after the relock it follows: past the bounce window within
    /// which a replay takes each input (see `reloadIsRecorded`). A sleep: a slow machine only
    /// makes the gap longer, which is what the test needs.
    static let pastTheBounceWindow: TimeInterval = 0.2

    @Test("SIGTERM drives the lock to the fail_mode level last, reports it, exits 0", arguments: [
        // safe: SIGTERM while locked (a coin, then a passage); the lock must end released.
        ("safe", "0.1 coin\n0.5 push\n", "locked", 0),
        // secure: SIGTERM while unlocked (a coin and no passage); the lock must end held.
        ("secure", "0.1 coin\n", "unlocked", 1),
    ])
    func sigtermLeavesTheFailLevel(failMode: String, script: String, stateAtSignal: String, failLevel: Int) async throws {
        let directory = try TemporaryDirectory()
        // The relock timeout the longest a board takes (a day), far beyond the test's bounds:
        // the state at the signal is the script's, however late this test's task is resumed (a
        // run under ThreadSanitizer once resumed it after the 600 s this was, and the relock had
        // come).
        let board = try directory.file("board.toml", try Self.simBoard(replacing: #"fail_mode = "secure""#, with: #"fail_mode = "\#(failMode)""#)
            .replacingOccurrences(of: #"relock_timeout = "5s""#, with: #"relock_timeout = "86400s""#))
        let scenario = try directory.file("s.txt", script)
        let daemon = try BackgroundTurnstiled(["run", "--board", board, "--script", scenario, "--json", "--no-http"])
        // The transitions and the lock's write come from two rings the reporter drains in turn:
        // the write of the last step may be printed after its transition, so both are waited for.
        let scriptDone = await daemon.wait(for: Self.patience) { daemon in
            let records = daemon.records
            let transitions = records.filter { $0["type"] as? String == "transition" }
            let lock = records.last { $0["type"] as? String == "output" && $0["line"] as? String == "lock" }
            return transitions.count == script.split(separator: "\n").count && transitions.last?["to"] as? String == stateAtSignal
                && lock?["value"] as? Int == 1 - failLevel
        }
        try #require(scriptDone, "the script's transitions never came: \(daemon.description)")
        // The level before the signal is the other one, so the drive is seen to happen.
        let before = daemon.records.last { $0["type"] as? String == "output" && $0["line"] as? String == "lock" }
        #expect(before?["value"] as? Int == 1 - failLevel, "\(daemon.description)")

        daemon.send(SIGTERM)
        let status = await daemon.waitForExit(timeout: Self.patience)
        #expect(status == 0, "\(daemon.description)")
        let records = daemon.records
        let lastLock = records.last { $0["type"] as? String == "output" && $0["line"] as? String == "lock" }
        #expect(lastLock?["value"] as? Int == failLevel, "the last lock write is the fail level: \(daemon.description)")
        let stopped = records.first { $0["type"] as? String == "stopped" }
        #expect(stopped?["reason"] as? String == "stopped", "\(daemon.description)")
        #expect(stopped?["lock"] as? Int == failLevel, "\(daemon.description)")
        #expect(records.last?["type"] as? String == "summary", "\(daemon.description)")
    }

    /// An `emergency off` while the fire line still holds the alarm changes
    /// nothing (a command never ends what a line holds), and the reply says so and why, to
    /// `ctl` as to a program reading the JSON (the MQTT site answers with the same handler).
    @Test("emergency off while the fire line holds the alarm: accepted, with a note that it stays in emergency and why")
    func emergencyOffHeldByTheLine() async throws {
        let directory = try TemporaryDirectory()
        // Where no line holds anything: a plain acceptance.
        let quietSocket = directory.url.appendingPathComponent("quiet.sock").path
        let quiet = try BackgroundTurnstiled(
            ["run", "--board", repositoryPath("boards/sim.toml"), "--json", "--no-http", "--control-socket", quietSocket])
        defer { quiet.stop(timeout: Self.patience) }
        try #require(await quiet.wait(for: Self.patience) { $0.records.contains { $0["type"] as? String == "ready" } }, "\(quiet.description)")
        let plain = try await Turnstiled.run(["ctl", "--socket", quietSocket, "emergency", "off", "--json"])
        #expect(plain.status == 0 && !plain.stdout.contains("\"note\""), "\(plain)")

        // Where the fire contact closes at once and stays closed (a scenario drives the line).
        let socket = directory.url.appendingPathComponent("control.sock").path
        let script = try directory.file("fire.txt", "0.05 set emergency on\n600 end\n")
        let daemon = try BackgroundTurnstiled(
            ["run", "--board", repositoryPath("boards/sim.toml"), "--json", "--no-http", "--control-socket", socket, "--script", script])
        defer { daemon.stop(timeout: Self.patience) }
        let held = await daemon.wait(for: Self.patience) { daemon in
            daemon.records.contains { $0["type"] as? String == "transition" && $0["to"] as? String == "emergency" }
        }
        try #require(held, "\(daemon.description)")
        // The transition record is printed before the control handler's view of the state is
        // published: wait until the daemon's status says emergency (the view the reply's note
        // is decided on), instead of a fixed pause.
        let shown = await daemon.wait(for: Self.patience) { _ in
            (try? await Turnstiled.run(["ctl", "--socket", socket, "status", "--json"]))?.stdout.contains(#""state":"emergency""#) == true
        }
        try #require(shown, "\(daemon.description)")
        let json = try await Turnstiled.run(["ctl", "--socket", socket, "emergency", "off", "--json"])
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout.contains(#""accepted":"emergencyOff""#) && json.stdout.contains("the emergency line still signals it")
                && json.stdout.contains("stays in emergency"), "\(json)")
        let text = try await Turnstiled.run(["ctl", "--socket", socket, "emergency", "off"])
        #expect(text.stdout.contains("stays in emergency until that line is released"), "\(text)")
        let status = try await Turnstiled.run(["ctl", "--socket", socket, "status", "--json"])
        #expect(status.stdout.contains(#""state":"emergency""#), "\(status)")
    }

    @Test("SIGHUP takes a new relock_timeout, refuses changed lines, and the daemon runs on")
    func sighupReloadsTimings() async throws {
        let directory = try TemporaryDirectory()
        let original = try Self.simBoard(replacing: #"relock_timeout = "5s""#, with: #"relock_timeout = "5s""#)
        let board = try directory.file("board.toml", original)
        let socket = directory.url.appendingPathComponent("control.sock").path
        let daemon = try BackgroundTurnstiled(["run", "--board", board, "--json", "--no-http", "--control-socket", socket])
        try #require(await daemon.wait(for: Self.patience) { $0.records.contains { $0["type"] as? String == "ready" } }, "\(daemon.description)")

        // 0.5 s instead of 5 s: the relock's time in the records, 0.5 s after the coin's, can
        // only be the new timing (however long the relock takes to show on a loaded machine).
        _ = try directory.file("board.toml", original.replacingOccurrences(of: #"relock_timeout = "5s""#, with: #"relock_timeout = "500ms""#))
        // Once: the daemon takes SIGHUP from its first instruction, so one sent just after
        // `ready` is heard (it used to be lost, or to kill the daemon, before the service group ran).
        daemon.send(SIGHUP)
        let reread = await daemon.wait(for: Self.patience) { $0.stderr.contains("SIGHUP:") && $0.stderr.contains("read again") }
        try #require(reread, "\(daemon.description)")
        #expect(daemon.stderr.contains("relock_timeout 0.5 s"), "\(daemon.description)")

        let pulse = try await Turnstiled.run(["ctl", "--socket", socket, "pulse", "coin"])
        #expect(pulse.status == 0, "\(pulse)")
        let relocked = await daemon.wait(for: Self.patience) { daemon in
            daemon.records.contains { $0["type"] as? String == "transition" && $0["event"] as? String == "timeout" }
        }
        #expect(relocked, "no relock within \(Self.patience) of the coin with relock_timeout 500ms: \(daemon.description)")
        let transitions = daemon.records.filter { $0["type"] as? String == "transition" }
        let unlock = transitions.first { $0["event"] as? String == "coin" && $0["to"] as? String == "unlocked" }
        let relock = transitions.first { $0["event"] as? String == "timeout" && $0["to"] as? String == "locked" }
        if let unlockTime = unlock?["t"] as? Double, let relockTime = relock?["t"] as? Double {
            // The timeout runs from the coin's debounced edge, which is the transition's time.
            #expect(abs((relockTime - unlockTime) - 0.5) < 0.05, "relock \(relockTime - unlockTime) s after the coin: \(daemon.description)")
        } else {
            Issue.record("no coin→unlocked and timeout→locked transitions: \(daemon.description)")
        }

        // A different lock line needs a restart: refused, and the daemon goes on.
        _ = try directory.file("board.toml", original.replacingOccurrences(of: "[outputs.lock]\nline = 4", with: "[outputs.lock]\nline = 9"))
        daemon.send(SIGHUP)
        let refused = await daemon.wait(for: Self.patience) { $0.stderr.contains("SIGHUP:") && $0.stderr.contains("refused") }
        #expect(refused, "\(daemon.description)")
        #expect(daemon.stderr.contains("[outputs] lines"), "the refusal names what changed: \(daemon.description)")
        try await Task.sleep(for: .seconds(Self.stillRunningWindow))
        #expect(daemon.isRunning, "\(daemon.description)")
        let status = try await Turnstiled.run(["ctl", "--socket", socket, "status", "--json"])
        #expect(status.status == 0 && status.stdout.contains("locked"), "the daemon still answers: \(status)")

        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: Self.patience) == 0, "\(daemon.description)")
    }

    @Test("sd_notify: READY=1, WATCHDOG=1 every WATCHDOG_USEC/2, STOPPING=1 on SIGTERM")
    func sdNotify() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("notify.sock").path
        let listener = try NotifyListener(path: path)
        let daemon = try BackgroundTurnstiled(
            ["run", "--board", repositoryPath("boards/sim.toml"), "--no-http"],
            environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"])

        let ready = listener.receive(until: ContinuousClock.now + Self.patience) { $0.contains("READY=1") }
        try #require(ready != nil, "no READY=1: \(daemon.description)")
        #expect(ready?.contains("STATUS=") == true, "READY=1 comes with a status: \(ready ?? "")")

        // Every 100 ms: 3 of them within `watchdogWindow`; the loop stops at the third.
        var watchdogs = 0
        let window = ContinuousClock.now + Self.watchdogWindow
        while watchdogs < 3, let message = listener.receive(until: window, where: { _ in true }) {
            if message.split(separator: "\n").contains("WATCHDOG=1") { watchdogs += 1 }
        }
        #expect(watchdogs >= 3, "\(watchdogs) WATCHDOG=1 in \(Self.watchdogWindow) with WATCHDOG_USEC=200000: \(daemon.description)")

        daemon.send(SIGTERM)
        let stopping = listener.receive(until: ContinuousClock.now + Self.patience) { $0.contains("STOPPING=1") }
        #expect(stopping != nil, "no STOPPING=1 after SIGTERM: \(daemon.description)")
        #expect(await daemon.waitForExit(timeout: Self.patience) == 0, "\(daemon.description)")
    }

    @Test("a recorded run of random inputs replays in simulate to the same state, credit and counters")
    func recordAndReplay() async throws {
        let seed = ProcessInfo.processInfo.environment["TURNSTILED_REPLAY_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        let scenario = RandomDaemonScenario.make(seed: seed)
        let context = "seed \(seed) (TURNSTILED_REPLAY_SEED=\(seed) repeats it), \(scenario.inputs) inputs"
        let (liveSummary, replaySummary, recorded) = try await Self.recordAndReplay(scenario.text, context: context)
        let mismatch = "\(context)\n--- run: \(liveSummary.text)\n--- simulate: \(replaySummary.text)\n--- scenario:\n\(scenario.text)\n--- recording:\n\(recorded)"
        #expect(liveSummary.state == replaySummary.state, "\(mismatch)")
        #expect(liveSummary.credit == replaySummary.credit, "\(mismatch)")
        #expect(liveSummary.counters == replaySummary.counters, "\(mismatch)")
        // The run took what the scenario drove: every coin counted, none lost on the way.
        #expect(liveSummary.counters["coins", default: 0] + liveSummary.counters["ignored", default: 0] > 0, "\(mismatch)")
        let recordedInputs = recorded.split(separator: "\n").filter {
            !$0.hasPrefix("#") && !$0.hasSuffix(" end") && !$0.isEmpty && !$0.hasPrefix("0 set ") && $0 != "0 inputs as taken"
        }
        #expect(recordedInputs.count == scenario.inputs, "every input recorded once: \(mismatch)")
    }

    @Test("a recording of back-to-back pulses on every line replays (the recorder keeps simulate's spacing rule)")
    func backToBackPulsesReplay() async throws {
        let seed = ProcessInfo.processInfo.environment["TURNSTILED_REPLAY_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        // Each pulse starts the moment its line is free by simulate's own rule (sim.toml: 50,
        // 150 and 100 ms pulses, 3 ms bounce, 10 ms debounce): the daemon plays them exactly
        // that far apart, and each settles a different time into its bounce.
        var random = SplitMix64(seed: seed)
        let lines: [(action: String, hold: Int64)] = [("coin", 63_000_000), ("push", 163_000_000), ("repair", 113_000_000)]
        var free: [Int64] = [200_000_000, 200_000_000, 200_000_000]
        var steps: [(Int64, String)] = []
        for _ in 0..<60 {
            let line = Int(random.next(in: 0...2))
            steps.append((free[line], lines[line].action))
            free[line] += lines[line].hold
        }
        steps.sort { $0.0 < $1.0 }
        let end = (steps.last?.0 ?? 0) + 500_000_000
        let text = steps.map { "\(Self.nanosecondsText($0.0)) \($0.1)" }.joined(separator: "\n") + "\n\(Self.nanosecondsText(end)) end\n"
        let context = "seed \(seed) (TURNSTILED_REPLAY_SEED=\(seed) repeats it)"
        let (liveSummary, replaySummary, recorded) = try await Self.recordAndReplay(text, context: context)
        #expect(liveSummary.counters["coins"] == steps.count { $0.1 == "coin" }, "every coin counted: \(liveSummary.text)")
        #expect(liveSummary.counters == replaySummary.counters && liveSummary.state == replaySummary.state,
                "\(context)\n--- run: \(liveSummary.text)\n--- simulate: \(replaySummary.text)\n--- recording:\n\(recorded)")
    }

    @Test("a reload that changes relock_timeout is in the recording: the replay on the old board relocks when the run did")
    func reloadIsRecorded() async throws {
        let directory = try TemporaryDirectory()
        let original = try Self.simBoard(replacing: #"relock_timeout = "5s""#, with: #"relock_timeout = "5s""#)
        let board = try directory.file("board.toml", original)
        let socket = directory.url.appendingPathComponent("control.sock").path
        let recording = directory.url.appendingPathComponent("recorded.txt").path
        let daemon = try BackgroundTurnstiled(["run", "--board", board, "--json", "--no-http", "--control-socket", socket, "--record", recording])
        try #require(await daemon.wait(for: Self.patience) { $0.records.contains { $0["type"] as? String == "ready" } }, "\(daemon.description)")

        _ = try directory.file("board.toml", original.replacingOccurrences(of: #"relock_timeout = "5s""#, with: #"relock_timeout = "300ms""#))
        // Once: signals are taken from the daemon's first instruction.
        daemon.send(SIGHUP)
        let reread = await daemon.wait(for: Self.patience) { $0.stderr.contains("SIGHUP:") && $0.stderr.contains("read again") }
        try #require(reread, "\(daemon.description)")
        #expect(try await Turnstiled.run(["ctl", "--socket", socket, "pulse", "coin"]).status == 0)
        let relocked = await daemon.wait(for: Self.patience) { daemon in
            daemon.records.contains { $0["type"] as? String == "transition" && $0["event"] as? String == "timeout" }
        }
        try #require(relocked, "no relock with relock_timeout 300ms: \(daemon.description)")
        // Not within the bounce window of the relock: a replay takes each input to within that
        // window of when the run did, so a stop right after a timer may end the replay before it
        // (seen once under AddressSanitizer, the stop 3 ms after the relock).
        try await Task.sleep(for: .seconds(Self.pastTheBounceWindow))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: Self.patience) == 0, "\(daemon.description)")

        // The board file as it was at the start: the recording alone must say what changed.
        _ = try directory.file("board.toml", original)
        let recorded = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(recorded.contains(" set relock_timeout 0.3\n"), "\(recorded)")
        let replay = try await Turnstiled.run(["simulate", "--board", board, "--script", recording, "--json"])
        try #require(replay.status == 0, "\(replay)\n--- recording:\n\(recorded)")
        let liveSummary = try #require(Self.summary(daemon.stdout), "\(daemon.description)")
        let replaySummary = try #require(Self.summary(replay.stdout), "\(replay)")
        let mismatch = "--- run: \(liveSummary.text)\n--- simulate: \(replaySummary.text)\n--- recording:\n\(recorded)"
        #expect(liveSummary.state == "locked" && liveSummary.counters["expiredCredits"] == 1, "\(mismatch)")
        #expect(liveSummary.state == replaySummary.state && liveSummary.counters == replaySummary.counters, "\(mismatch)")
    }

    @Test("run --script checks its expect lines as simulate does: each failure on stderr with its line, exit 1")
    func runChecksExpectLines() async throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file("expects.txt", """
            0.3 coin
            0.6 expect state unlocked
            0.6 expect counter coins 2
            0.8 fault
            0.8 expect state unlocked
            1.0 expect state locked
            1.0 expect output alarm 1
            1.2 end

            """)
        let board = repositoryPath("boards/sim.toml")
        let run = try await Turnstiled.run(["run", "--board", board, "--script", script, "--stop-at-end", "--no-http"])
        let simulate = try await Turnstiled.run(["simulate", "--board", board, "--script", script])
        #expect(run.status == 1, "\(run)")
        #expect(simulate.status == 1, "\(simulate)")
        #expect(!run.stdout.contains("every expect held"), "\(run)")
        // The same lines fail, for the same reasons (a fault at 0.8 s is not seen by an expect at 0.8 s).
        let failures = { (text: String) in text.split(separator: "\n").filter { $0.contains("expect failed") }.map { $0.drop { $0 != ":" } } }
        #expect(failures(run.stderr).count == 2 && failures(run.stderr) == failures(simulate.stderr), "--- run:\n\(run)\n--- simulate:\n\(simulate)")
        #expect(run.stderr.contains("line 3: at 0.6 s: expected counter coins to be 2, but it is 1"), "\(run)")
        #expect(run.stderr.contains("line 6: at 1 s: expected state locked, but the turnstile is broken in outOfService in operating"), "\(run)")
    }

    @Test("run --script says every expect held only when each was checked and held")
    func runClaimsOnlyWhatItChecked() async throws {
        let directory = try TemporaryDirectory()
        let board = repositoryPath("boards/sim.toml")
        let held = try directory.file("held.txt", "0.3 coin\n0.6 expect state unlocked\n0.8 end\n")
        let run = try await Turnstiled.run(["run", "--board", board, "--script", held, "--stop-at-end", "--no-http"])
        #expect(run.status == 0 && run.stdout.contains("every expect held"), "\(run)")
        let none = try directory.file("none.txt", "0.3 coin\n0.5 end\n")
        let quiet = try await Turnstiled.run(["run", "--board", board, "--script", none, "--stop-at-end", "--no-http"])
        #expect(quiet.status == 0 && !quiet.stdout.contains("every expect held"), "no expect, no claim: \(quiet)")
    }

    @Test("--record refuses the board file, the database and a file that is not a recording, before anything runs", arguments: [
        "board", "database", "foreign",
    ])
    func recordRefusesFilesNotItsOwn(target: String) async throws {
        let directory = try TemporaryDirectory()
        let boardText = try String(contentsOfFile: repositoryPath("boards/sim.toml"), encoding: .utf8)
        let board = try directory.file("board.toml", boardText)
        let database = directory.url.appendingPathComponent("counts.sqlite").path
        let foreign = try directory.file("notes.txt", "my notes\n")
        let record = ["board": board, "database": database, "foreign": foreign][target]!
        // A daemon that took the path anyway stops by itself (the code before this refusal did).
        let script = try directory.file("stop.txt", "0.1 end\n")
        let run = try await Turnstiled.run([
            "run", "--board", board, "--record", record, "--database", database, "--no-http", "--script", script, "--stop-at-end",
        ])
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains(target == "foreign" ? "is not a turnstiled recording" : "name the same file"), "\(run)")
        #expect(try String(contentsOfFile: board, encoding: .utf8) == boardText, "the board file is untouched")
        #expect(try String(contentsOfFile: foreign, encoding: .utf8) == "my notes\n")
    }

    static func nanosecondsText(_ nanoseconds: Int64) -> String {
        String(format: "%d.%09d", nanoseconds / 1_000_000_000, nanoseconds % 1_000_000_000)
    }

    // MARK: - Helpers

    /// `script` played into `run --record` on boards/sim.toml until it ends, and the recording
    /// replayed by `simulate`: both summaries and the recording. Both runs must exit 0.
    /// Commands at random moments within milliseconds of the input before them — before its
    /// debounce ends, within its bounce, just after it is taken — in the pattern whose order
    /// matters most (a coin, then `fault`, then `repair`), six times per run.
    /// The recording carries the order in which the controller took them (each input at the
    /// instant its line changed as taken, replayed without bounce: `inputs as taken`), so the
    /// replay ends where the run did. Without that order, 4–5 of 6 expired credits come back out
    /// of service.
    @Test("commands within milliseconds of the inputs they follow replay in the order the run took them", arguments: 0..<3)
    func commandsNearInputsReplayInOrder(run: Int) async throws {
        let seed = ProcessInfo.processInfo.environment["TURNSTILED_REPLAY_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed &+ UInt64(run))
        var lines: [String] = []
        var time = 200  // milliseconds
        for _ in 0..<6 {
            lines.append("\(Double(time) / 1000) coin")
            // The coin's pulse starts at `time`; it is taken 10 ms (the debounce) after its
            // bounce: the fault comes 5–25 ms after the pulse starts, on either side of that.
            let fault = time + 5 + Int(random.next() % 21)
            lines.append("\(Double(fault) / 1000) fault")
            lines.append("\(Double(fault + 300) / 1000) repair")
            time = fault + 300 + 1_200  // the repair period (1 s here) ends before the next coin
        }
        lines.append("\(Double(time + 500) / 1000) end")
        let script = lines.joined(separator: "\n") + "\n"
        let context = "seed \(seed &+ UInt64(run)) (TURNSTILED_REPLAY_SEED=\(seed) repeats it)"
        let board = try Self.simBoard(replacing: #"repair_period = "5s""#, with: #"repair_period = "1s""#)
        let (live, replay, recorded) = try await Self.recordAndReplay(script, context: context, boardText: board)
        let mismatch = "\(context)\n--- run: \(live.text)\n--- simulate: \(replay.text)\n--- scenario:\n\(script)\n--- recording:\n\(recorded)"
        #expect(live.counters == replay.counters && live.state == replay.state && live.credit == replay.credit, "\(mismatch)")
        #expect(live.counters["coins"] == 6, "\(mismatch)")
    }

    static func recordAndReplay(
        _ script: String, context: String, boardText: String? = nil
    ) async throws -> (live: Summary, replay: Summary, recording: String) {
        let directory = try TemporaryDirectory()
        let scriptPath = try directory.file("script.txt", script)
        let recording = directory.url.appendingPathComponent("recorded.txt").path
        let board = try boardText.map { try directory.file("board.toml", $0) } ?? repositoryPath("boards/sim.toml")
        let live = try await Turnstiled.run(["run", "--board", board, "--script", scriptPath, "--stop-at-end", "--record", recording, "--json", "--no-http"])
        try #require(live.status == 0, "\(context)\n\(live)\n--- scenario:\n\(script)")
        let recorded = try String(contentsOfFile: recording, encoding: .utf8)
        let replay = try await Turnstiled.run(["simulate", "--board", board, "--script", recording, "--json"])
        try #require(replay.status == 0, "\(context)\n\(replay)\n--- recording:\n\(recorded)")
        let liveSummary = try #require(summary(live.stdout), "\(context)\n\(live)")
        let replaySummary = try #require(summary(replay.stdout), "\(context)\n\(replay)")
        return (liveSummary, replaySummary, recorded)
    }

    /// boards/sim.toml with one piece of text replaced (which must be there).
    static func simBoard(replacing old: String, with new: String) throws -> String {
        let text = try String(contentsOfFile: repositoryPath("boards/sim.toml"), encoding: .utf8)
        try #require(text.contains(old), "boards/sim.toml no longer has \(old)")
        return text.replacingOccurrences(of: old, with: new)
    }

    struct Summary {
        var state: String
        var credit: Int
        var counters: [String: Int]
        var text: String
    }

    /// The final `summary` record of a `--json` output.
    static func summary(_ stdout: String) -> Summary? {
        for line in stdout.split(separator: "\n").reversed() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["type"] as? String == "summary" else { continue }
            guard let state = object["state"] as? String, let credit = object["credit"] as? Int,
                  let counters = object["counters"] as? [String: Int] else { return nil }
            return Summary(state: state, credit: credit, counters: counters, text: String(line))
        }
        return nil
    }
}

/// A random scenario of direct and line inputs that `run --script` accepts on boards/sim.toml:
/// pulses on one line at least `lineGap` apart after the previous pulse ended, any two steps at
/// least `stepGap` apart (so the replay's bounce cannot reorder them).
struct RandomDaemonScenario {
    var text: String
    var inputs: Int

    /// Clear of a pulse's bounce (3 ms) and debounce (10 ms) many times over.
    static let lineGap: Int64 = 250_000_000
    static let stepGap: Int64 = 30_000_000
    /// About 10 s of real time: the whole suite stays near 15 s.
    static let duration: Int64 = 10_000_000_000

    static func make(seed: UInt64) -> RandomDaemonScenario {
        var random = SplitMix64(seed: seed)
        let target = Int(random.next(in: 150...250))
        // When each line (coin, push, service, emergency) is free again.
        var free: [String: Int64] = ["coin": 0, "push": 0, "service": 0, "emergency": 0]
        var emergencyOn = false
        var lines: [String] = []
        // Start after the daemon's first instants, as inputs come in the field.
        var time: Int64 = 200_000_000
        let meanGap = (duration - time) / Int64(target)
        while lines.count < target {
            time += stepGap + Int64(random.next(in: 0...UInt64(2 * Swift.max(0, meanGap - stepGap))))
            var choices: [(String, Int64, String)] = []  // line, busy for, text
            if free["coin"]! <= time { choices += Array(repeating: ("coin", 50_000_000, "coin"), count: 6) }
            if free["push"]! <= time {
                choices += Array(repeating: ("push", 150_000_000, "push"), count: 5)
                let hold = Int64(random.next(in: 20...120)) * 10_000_000
                choices.append(("push", hold, "push hold \(Self.seconds(hold))"))
            }
            if free["service"]! <= time { choices.append(("service", 100_000_000, "repair")) }
            if free["emergency"]! <= time {
                // An alarm is rare and short; one left on is switched off again soon.
                if emergencyOn || random.next(in: 0...3) == 0 { choices.append(("emergency", 0, emergencyOn ? "emergency off" : "emergency on")) }
            }
            // Commands, as `ctl` sends them: an emergency declared or withdrawn beside the line.
            for command in ["fault", "event emergencyOn", "event emergencyOff", "event repair"] { choices.append(("", 0, command)) }
            let (line, busy, action) = choices[Int(random.next(in: 0...UInt64(choices.count - 1)))]
            if line.isEmpty && random.next(in: 0...2) != 0 { continue }  // commands rarer still
            if line == "emergency" { emergencyOn.toggle() }
            if !line.isEmpty { free[line] = time + busy + lineGap }
            lines.append("\(Self.seconds(time)) \(action)")
        }
        if emergencyOn {
            time = Swift.max(time + stepGap, free["emergency"]!)
            lines.append("\(Self.seconds(time)) emergency off")
        }
        let inputs = lines.count
        lines.insert("# random scenario, seed \(seed)", at: 0)
        lines.append("\(Self.seconds(time + 1_000_000_000)) end")
        return RandomDaemonScenario(text: lines.joined(separator: "\n") + "\n", inputs: inputs)
    }

    static func seconds(_ nanoseconds: Int64) -> String {
        String(format: "%.3f", Double(nanoseconds) / 1e9)
    }
}
