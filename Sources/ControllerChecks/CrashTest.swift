import ControllerDaemon
import ControllerFSM
import ControllerFSMSim
import ControllerStore
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The crash test of a daemon's durable counts: the daemon on its simulated board with a fresh
/// database, a stream of random inputs through `ctl`, and at a random moment the counts it
/// reports taken, then SIGKILL, and the daemon started again on the same database. Every count
/// reported before a kill must be durable after it (`stats --json` with the daemon down, `ctl
/// status --json` from the restarted daemon), every balance `stats` reports must hold, and the
/// product's balances over a standing gauge (checks.json's `balances`) hold before the kill, in
/// the database and after the restart, which books what stood as voided. Midway, a copy of the
/// database taken while the daemon writes and cut mid-file must be refused (exit 4, naming the
/// file as damaged) and left byte for byte as it was.
public struct CrashTest: Sendable {
    /// A start may take a second or two on a busy two-core machine (a debug build, sanitizers).
    public static let startTimeout: Duration = .seconds(15)
    /// The kill comes this long after the stream of inputs began.
    public static let killWindowSeconds = 0.2...1.5
    /// The pause between two inputs of the stream.
    public static let inputGapSeconds = 0.0...0.06
    /// How long one `ctl` of the stream may take; the daemon being killed under it is normal.
    public static let inputTimeout: Duration = .seconds(5)
    /// How long `ctl status`, `stats` and the refusal of a damaged copy may take.
    public static let commandTimeout: Duration = .seconds(20)
    /// A copy smaller than this (two SQLite pages) is too small to cut meaningfully.
    public static let smallestCopyBytes = 2 * 4_096
    /// Where the copy is cut past its middle: off any page boundary, as a power loss leaves it.
    public static let cutPastMiddleBytes = 1_234
    /// The exit status of a daemon that refuses its database.
    public static var refusedDatabaseStatus: Int32 { ExitCodes.storeError }
    /// How often the start is polled.
    static let startPollMicroseconds: UInt32 = 20_000

    public let daemon: String
    public let product: String
    public let spec: CrashCheckSpec
    public let kills: Int
    public let seed: UInt64
    /// The board as given (`--board`); nil for the product's simulated board with checks.json's
    /// edits.
    public let board: String?
    public let package: ProductPackage

    /// How long the daemon's start may take (`CrashTest.startTimeout` unless given).
    public let startTimeout: Duration
    /// How long one command (`ctl status`, `stats`, a drain, a refusal) may take
    /// (`CrashTest.commandTimeout` unless given).
    public let commandTimeout: Duration

    /// `startTimeout` and `commandTimeout`: longer where every process is slower than a busy
    /// two-core machine makes it (an emulated one: qemu-user runs a test's children too).
    public init(daemon: String, package: ProductPackage, spec: CrashCheckSpec, kills: Int, seed: UInt64, board: String?,
                startTimeout: Duration = CrashTest.startTimeout, commandTimeout: Duration = CrashTest.commandTimeout) {
        self.startTimeout = startTimeout
        self.commandTimeout = commandTimeout
        self.daemon = daemon
        self.product = package.product
        self.package = package
        self.spec = spec
        self.kills = kills
        self.seed = seed
        self.board = board
    }

    /// Runs the test; its report's lines. A failure names the seed that repeats it and the
    /// folder its files are kept in.
    public func run() throws(CheckFailure) -> [String] {
        guard kills >= 1 else { throw CheckFailure("a crash test needs at least one kill, not \(kills)") }
        let work = try Self.temporaryFolder(prefix: "\(product)-crash-")
        do {
            let lines = try Run(test: self, work: work).run()
            try? FileManager.default.removeItem(atPath: work)
            return lines
        } catch {
            throw CheckFailure("crash test FAILED (seed \(seed): SEED=\(seed) repeats it; files kept in \(work)): \(error.message)")
        }
    }

    static func temporaryFolder(prefix: String) throws(CheckFailure) -> String {
        var template = Array((URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(prefix + "XXXXXX").path).utf8CString)
        // mkdtemp fills in the template where it is and returns a pointer into it: read the
        // array afterwards, never that pointer (an `&template` argument lends the storage for
        // the call alone, and an optimized build freed it: "initialize overlapping range").
        guard mkdtemp(&template) != nil else { throw CheckFailure("cannot make a temporary folder: \(SystemErrno.describe(errno))") }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// One run of the test, in its folder.
private struct Run {
    let test: CrashTest
    let work: String
    var database: String { work + "/counts.sqlite" }
    var socket: String { work + "/control.sock" }
    var logPath: String { work + "/daemon.log" }

    func run() throws(CheckFailure) -> [String] {
        let started = ContinuousClock.now
        var random = SplitMix64(seed: test.seed)
        let board = try boardPath()
        try inputsExist()
        var checked = 0
        var inputsSent = 0
        var truncation: [String] = []
        // The daemon and the input stream of the moment: a failure stops both before it is
        // reported, so no daemon of a failed run is left running.
        var running: ChildProcess? = try start(board: board).0
        var stream: InputStream?
        do throws(CheckFailure) {
            for kill in 1...test.kills {
                stream = InputStream(run: self, seed: random.next())
                stream?.start()
                usleep(UInt32(Self.uniform(CrashTest.killWindowSeconds, &random) * 1_000_000))
                if kill == max(1, test.kills / 2) && truncation.isEmpty { truncation = try truncatedCopyIsRefused(board: board) }
                guard let reported = status() else { throw CheckFailure("kill \(kill): `ctl status --json` failed while the daemon ran; its log: \(logPath)") }
                try CrashRules.balancesHold(test.spec.balances, in: reported, where: "kill \(kill), reported before it")
                running?.signal(SIGKILL)
                _ = running?.waitForExit()
                running = nil
                inputsSent += stream?.stop() ?? 0
                stream = nil

                let durable = try stats()
                try CrashRules.statsBalancesHold(durable, expectingSome: !test.spec.balances.isEmpty, where: "kill \(kill)")
                try CrashRules.balancesHold(test.spec.balances, in: durable, where: "kill \(kill), stats after it")
                checked += try CrashRules.kept(reported: reported.counts, after: durable.counts, where: "kill \(kill), stats after it")

                let (restartedDaemon, restarted) = try start(board: board)
                running = restartedDaemon
                try CrashRules.balancesHold(test.spec.balances, in: restarted, where: "kill \(kill), status after the restart")
                checked += try CrashRules.kept(reported: reported.counts, after: restarted.counts, where: "kill \(kill), status after the restart")
                try CrashRules.standingVoidedByRestart(test.spec.balances, durable: durable, restarted: restarted, where: "kill \(kill)")
            }
        } catch {
            _ = stream?.stop()
            running?.signal(SIGKILL)
            _ = running?.waitForExit()
            throw error
        }
        // The last one stops as a daemon is told to; killed if it does not.
        guard let last = running else { throw CheckFailure("no daemon ran after the last kill") }
        last.signal(SIGTERM)
        guard let ending = last.waitForExit(within: test.commandTimeout) else {
            throw CheckFailure("the last daemon did not end within \(test.commandTimeout) of SIGTERM; its log: \(logPath)")
        }
        guard ending == 0 else { throw CheckFailure("the last daemon exited \(ending) after SIGTERM; its log: \(logPath)") }
        let final = try stats()
        try CrashRules.statsBalancesHold(final, expectingSome: !test.spec.balances.isEmpty, where: "after the last run")
        for kind in test.spec.counted where final.counts[kind, default: 0] == 0 {
            let inputs = test.spec.inputs.map { $0.joined(separator: " ") }.joined(separator: ", ")
            throw CheckFailure("no \(kind) was ever counted: the inputs (\(inputs)) did not reach the daemon")
        }
        let seconds = Int((ContinuousClock.now - started).components.seconds)
        let totals = test.spec.summary.map { "\($0[1]) \(final.counts[$0[0], default: 0])" }.joined(separator: ", ")
        let held = test.spec.balances.isEmpty ? "every one kept" : "every one kept, every balance held"
        return truncation + [
            "totals: \(final.numbers["sessions", default: 0]) runs, \(totals), \(inputsSent) inputs sent",
            "crash test of \(test.product): \(test.kills) kills, \(checked) counts checked, \(held) (\(seconds) s, seed \(test.seed))",
        ]
    }

    /// The board the daemon runs: the one given, or the product's simulated board edited.
    func boardPath() throws(CheckFailure) -> String {
        if let board = test.board { return board }
        return try test.package.simulatedBoard(editedWith: test.spec.boardEdits, writingTo: work + "/board.toml")
    }

    /// Each input is a command `ctl --help` lists, with its line: a renamed line fails here
    /// rather than every input being refused.
    func inputsExist() throws(CheckFailure) {
        let usage = try ChildProcess.run([test.daemon, "ctl", "--help"], timeout: test.commandTimeout).output
        for words in test.spec.inputs {
            let listed = usage.split(separator: "\n").contains { line in
                let tokens = line.split(separator: " ")
                return tokens.count >= 2 && tokens[0] == words[0] && tokens[1].split(separator: "|").contains(Substring(words[1]))
            }
            guard listed else { throw CheckFailure("`\(test.product) ctl --help` has no `\(words[0]) \(words[1])`; update \"crash\" in \(test.package.checksPath)") }
        }
    }

    func ctl(_ words: [String], timeout: Duration) throws(CheckFailure) -> ChildProcess.Finished {
        try ChildProcess.run([test.daemon, "ctl", "--socket", socket] + words, timeout: timeout)
    }

    /// What the running daemon reports, or nil when it does not answer.
    func status() -> CountSnapshot? {
        guard let reply = try? ctl(["status", "--json"], timeout: test.commandTimeout), reply.status == 0 else { return nil }
        return try? CountSnapshot.status(json: reply.output)
    }

    func stats() throws(CheckFailure) -> CountSnapshot {
        let result = try ChildProcess.run([test.daemon, "stats", "--database", database, "--json"], timeout: test.commandTimeout)
        guard result.status == 0 else { throw CheckFailure("stats exited \(result.status): \(result.errors)") }
        return try CountSnapshot.stats(json: result.output)
    }

    /// Starts the daemon and waits until it reports the phase `running`.
    func start(board: String) throws(CheckFailure) -> (ChildProcess, CountSnapshot) {
        let daemon = try ChildProcess.start(
            [test.daemon, "run", "--board", board, "--database", database, "--control-socket", socket, "--json", "--no-http"],
            appendingOutputTo: logPath)
        let deadline = ContinuousClock.now + test.startTimeout
        while ContinuousClock.now < deadline {
            if let status = daemon.exitStatusIfEnded() { throw CheckFailure("the daemon exited \(status) at its start; its log: \(logPath)") }
            if FileManager.default.fileExists(atPath: socket), let snapshot = status(), snapshot.phase == "running" { return (daemon, snapshot) }
            usleep(CrashTest.startPollMicroseconds)
        }
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit()
        throw CheckFailure("the daemon did not report the phase running within \(test.startTimeout); its log: \(logPath)")
    }

    /// Copies the database while the daemon writes, cuts the copy mid-file, and expects the
    /// daemon to refuse it and leave it as it was; the report's line.
    func truncatedCopyIsRefused(board: String) throws(CheckFailure) -> [String] {
        let copy = work + "/truncated.sqlite"
        do { try StoreSnapshot.copy(databaseAt: database, to: copy) } catch { throw CheckFailure("copying \(database) as the daemon writes: \(error)") }
        guard var bytes = FileManager.default.contents(atPath: copy) else { throw CheckFailure("cannot read the copy \(copy)") }
        let size = bytes.count
        guard size >= CrashTest.smallestCopyBytes else { throw CheckFailure("the database is only \(size) bytes mid-run; too small to cut meaningfully") }
        let cut = size / 2 + CrashTest.cutPastMiddleBytes
        bytes = bytes.prefix(cut)
        guard FileManager.default.createFile(atPath: copy, contents: bytes) else { throw CheckFailure("cannot write \(copy)") }
        let result: ChildProcess.Finished
        do {
            result = try ChildProcess.run([test.daemon, "run", "--board", board, "--database", copy, "--no-http"], timeout: test.commandTimeout)
        } catch {
            throw CheckFailure("the daemon took a database cut from \(size) to \(cut) bytes and ran on it")
        }
        let message = result.errors.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == CrashTest.refusedDatabaseStatus else {
            throw CheckFailure("a database cut from \(size) to \(cut) bytes: exit \(result.status), not \(CrashTest.refusedDatabaseStatus); its errors: \(message)")
        }
        guard message.contains(copy), message.contains("damaged") else { throw CheckFailure("the refusal does not name the file as damaged: \(message)") }
        guard FileManager.default.contents(atPath: copy) == bytes else { throw CheckFailure("the refused database file \(copy) was changed") }
        for suffix in ["-wal", "-journal"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: copy + suffix)[.size] as? Int) ?? 0
            guard size == 0 else { throw CheckFailure("refusing the database left a non-empty \(copy + suffix)") }
        }
        let refusal = message.split(separator: "\n").first { $0.contains("damaged") }.map { String($0.prefix(200)) } ?? message
        return ["a copy cut from \(size) to \(cut) bytes refused with exit 4, the file unchanged: \(refusal)"]
    }

    static func uniform(_ range: ClosedRange<Double>, _ random: inout SplitMix64) -> Double {
        range.lowerBound + random.nextUnitInterval() * (range.upperBound - range.lowerBound)
    }

    /// The product's inputs through `ctl` on a thread of its own, until stopped (refusals while
    /// the daemon is down are expected).
    final class InputStream: Sendable {
        private let run: Run
        private let seed: UInt64
        private let stopped = Atomic<Bool>(false)
        private let sent = Atomic<Int>(0)
        private let finished = DispatchSemaphore(value: 0)

        init(run: Run, seed: UInt64) {
            self.run = run
            self.seed = seed
        }

        func start() {
            let thread = Thread { [self] in
                var random = SplitMix64(seed: seed)
                let inputs = run.test.spec.inputs
                while !stopped.load(ordering: .acquiring) {
                    let words = inputs[Int(random.next(below: UInt64(inputs.count)))]
                    if let reply = try? run.ctl(words, timeout: CrashTest.inputTimeout), reply.status == 0 { sent.add(1, ordering: .relaxed) }
                    usleep(UInt32(Run.uniform(CrashTest.inputGapSeconds, &random) * 1_000_000))
                }
                finished.signal()
            }
            thread.start()
        }

        /// Stops the stream and waits for its thread; how many inputs the daemon accepted.
        func stop() -> Int {
            stopped.store(true, ordering: .releasing)
            finished.wait()
            return sent.load(ordering: .relaxed)
        }
    }
}
