import ArgumentParser
import ControllerFSM
import ControllerFSMGpiod
import ControllerFSMSim
import Foundation
import Logging
import ServiceLifecycle
import ControllerHost
import Turnstile
import ControllerSimulation
import ControllerDaemon
import ControllerHTTP
import ControllerStore

#if canImport(Glibc)
import Glibc
#endif

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the turnstile as a daemon: on real GPIO lines through libgpiod, or on a simulated board.",
        discussion: """
            Opens the board's chip, requests the outputs at their safe levels (the lock held) and \
            then the inputs, reads the fire-alarm level (the self-test), and runs until SIGTERM \
            or SIGINT. Then it stops taking events, finishes the one in hand, drives the lock to \
            the board's fail_mode level (secure: locked, safe: released), makes every count \
            durable, releases the lines and exits 0. SIGHUP reads the board file again and takes \
            its [turnstile] timings (a board whose lines changed is refused; the running \
            configuration stays).

            On a simulated board (backend = "sim") time is real and the inputs come from \
            --script, played in real time, or from `turnstiled ctl pulse`.

            Under systemd (Type=notify) it reports READY=1 after the self-test, WATCHDOG=1 from \
            the event loop, STOPPING=1 and its state in STATUS=, and logs plain lines for the \
            journal. Transitions and output changes are printed as `simulate` prints them, \
            with times in seconds since the start.

            Exit status: 0 after SIGTERM or SIGINT (or the end of a script with \
            --stop-at-end), 1 when an expect line of the script failed (each is reported on \
            standard error with its line; expects are checked as in simulate, against \
            everything strictly before their time), 2 for a bad board file, scenario or \
            option, 3 when a GPIO error stopped the controller (chip not found, a line busy, \
            permission denied).
            """)

    @Option(name: .long, help: ArgumentHelp("The board file.", valueName: "file"))
    var board: String

    @Flag(name: .long, help: "Write one JSON object per line instead of the readable trace.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Simulated boards: play this scenario's inputs in real time.", valueName: "file"))
    var script: String?

    @Flag(name: .long, help: "With --script: stop (as SIGTERM would) when the scenario ends.")
    var stopAtEnd = false

    @Option(name: .long, help: ArgumentHelp("Write every input the controller takes as a scenario that `simulate --script` replays.", valueName: "file"))
    var record: String?

    @Option(name: .long, help: ArgumentHelp("Serve the status page, /status, /metrics and /healthz here (port \(HTTPEndpoint.ports.lowerBound) to \(HTTPEndpoint.ports.upperBound); 0: any free port).", valueName: "address:port"))
    var http = HTTPEndpoint.standard

    @Flag(name: .long, help: "Serve no HTTP.")
    var noHttp = false

    @Option(name: .long, help: ArgumentHelp("Make every count durable in this SQLite file (created if missing; a damaged one is refused and kept).", valueName: "file"))
    var database: String?

    @Option(name: .long, help: ArgumentHelp("Keep each event's detail this many days, between \(StoreLimits.minimumRetentionDays) and \(StoreLimits.maximumRetentionDays); older ones live on in the daily totals (default: keep all).", valueName: "days"))
    var retentionDays: Int?

    @Option(name: .long, help: ArgumentHelp("Listen for `turnstiled ctl` on this Unix socket (mode 0660).", valueName: "path"))
    var controlSocket: String?

    @Option(name: .long, help: ArgumentHelp("The group whose members may use the control socket (default: the daemon's own).", valueName: "name"))
    var controlGroup: String?

    /// Room for the records made between two drains (RunReporter.drainInterval), many times over.
    static let reportRingCapacity = 4096

    func validate() throws {
        if stopAtEnd && script == nil { throw ValidationError("--stop-at-end needs --script") }
        // Bounded here, not where it is used: the retention's cutoff is computed an hour into
        // the run, and a value past the store's bound overflowed there (a crash loop under
        // Restart=on-failure).
        if let retentionDays, !(StoreLimits.minimumRetentionDays...StoreLimits.maximumRetentionDays).contains(retentionDays) {
            throw ValidationError(
                "--retention-days must be between \(StoreLimits.minimumRetentionDays) and \(StoreLimits.maximumRetentionDays), got \(retentionDays)")
        }
        if retentionDays != nil && database == nil { throw ValidationError("--retention-days needs --database") }
        if controlGroup != nil && controlSocket == nil { throw ValidationError("--control-group needs --control-socket") }
        try validatePaths()
    }

    /// Every file the daemon writes is its own, and --record never replaces a file that is not
    /// a recording.
    private func validatePaths() throws {
        let named = [("--board", board), ("--record", record), ("--database", database), ("--control-socket", controlSocket)]
        if let clash = DaemonPaths.clash(among: named.compactMap { option, path in path.map { (option, $0) } }) {
            throw ValidationError(clash)
        }
        if let record {
            do { try FlightRecorder.checkReplaceable(record) } catch { throw ValidationError("--record: \(error)") }
        }
    }

    func run() async throws {
        // Installed by `main` already; taken here before anything else is touched.
        let signals: SignalTrap
        switch SignalTrap.daemon {
        case .success(let trap): signals = trap
        case .failure(let error): Terminal.error("\(error)"); throw ExitStatus.gpioError
        }
        let boardFile = try loadBoard(board)
        let journal = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil
        LoggingSystem.bootstrap(PlainLogHandler.factory(journal: journal))
        let logger = Logger(label: "turnstiled")
        Syscalls.lineBufferStandardOutput()
        // A reader of standard output that goes away must not kill the controller mid-run
        // (without the fail-mode drive): writes then fail quietly instead.
        Syscalls.ignoreBrokenPipes()

        switch boardFile.backend {
        case .libgpiod:
            guard script == nil else {
                Terminal.error("--script plays a scenario on a simulated board; \(board) drives real lines (backend = \"libgpiod\")")
                throw ExitStatus.badInput
            }
            let chip: GpiodChip
            do {
                chip = try GpiodChip.open(boardFile.chip)
            } catch {
                Terminal.error("\(error)")
                throw ExitStatus.gpioError
            }
            let debouncing = GpiodChip.kernelDebounces ? "inputs debounced by the kernel" : "inputs debounced in software (libgpiod 1.6 cannot ask the kernel)"
            logger.info("board \(boardFile.name) (\(board)): chip \(chip.info), \(GpiodChip.libraryDescription), \(debouncing)")
            let source = GpiodSource(selector: boardFile.chip)
            try await runDaemon(
                board: boardFile, chip: chip, chipText: "\(chip.info.name) [\(chip.info.label)]", source: source,
                completionClock: MonotonicClock(), logger: logger, signals: signals) { controller in
                try logLines(of: boardFile, on: chip, logger: logger)
                _ = controller
            }
        case .sim:
            let scenario = try script.map { try loadScript($0, board: boardFile) }
            let clock = ManualClock()
            let simulated = SimulatedBoard(board: boardFile, clock: clock, seed: 1) { _ in }
            let source = SimSource(board: boardFile, chip: simulated.chip, inputOffsets: simulated.inputOffsets, script: scenario)
            source.applyInitialLevels()
            let inputs = script.map { "inputs from \($0)" } ?? "inputs from `turnstiled ctl pulse`"
            logger.info("board \(boardFile.name) (\(board)): simulated chip \(simulated.chip.info.label), real time, \(inputs)")
            try await runDaemon(
                board: boardFile, chip: simulated.chip, chipText: "\(simulated.chip.info.name) [\(simulated.chip.info.label)]",
                source: source, completionClock: SourceClock(source), logger: logger, signals: signals,
                stopAt: stopAtEnd ? source.scriptEnd : nil) { _ in }
        }
    }

    /// The daemon on any chip: self-test, services, the loop, the drain.
    private func runDaemon<Source: EventSource>(
        board boardFile: BoardFile, chip: Source.Chip, chipText: String, source: Source, completionClock: any MachineClock,
        logger: Logger, signals: SignalTrap, stopAt: MachineInstant? = nil, afterRequest: (TurnstileController<Source.Chip>) throws -> Void
    ) async throws {
        let inbox: CommandInbox
        do {
            inbox = try CommandInbox()
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.gpioError
        }
        let notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment)
        let status = StatusHub(board: boardFile.name, chip: chipText, inbox: inbox)
        let lifecycle = LifecycleHolder { [notifier] phase, context in
            status.publishPhase(phase, degradedReason: phase == .degraded ? context.degradedReason : nil)
            switch phase {
            case .degraded: logger.warning("degraded: \(context.degradedReason ?? "")")
            case .running, .selfTest, .draining, .stopped: logger.info("\(phase.name)")
            case .starting: break
            }
            notifier.status("\(phase.name)\(context.degradedReason.map { phase == .degraded ? ": \($0)" : "" } ?? "")")
        }
        let warnings = DaemonWarnings(logger: logger)
        // The store first: a damaged database is refused before any line is touched.
        var store: TurnstileCountStore?
        if let database {
            do {
                store = try TurnstileCountStore.open(path: database, retentionDays: retentionDays)
            } catch {
                Terminal.error("\(error)")
                lifecycle.send(.selfTestFailed)
                throw ExitStatus.storeError
            }
        } else {
            logger.notice("no --database: counts are kept in memory only and lost at exit")
        }
        defer { try? store?.close() }

        let trace = TurnstileController<Source.Chip>.Trace(capacity: Self.reportRingCapacity)
        let outputLog = TurnstileController<Source.Chip>.OutputLog(capacity: Self.reportRingCapacity)
        let ledger = TurnstileController<Source.Chip>.Ledger(capacity: TurnstileStoreRecorder.recommendedLedgerCapacity)
        let inputLog = record == nil ? nil : TurnstileController<Source.Chip>.InputLog(capacity: Self.reportRingCapacity)
        let watermark = ReportWatermark()
        let controller: TurnstileController<Source.Chip>
        do {
            controller = try TurnstileController(
                chip: chip, board: boardFile, trace: trace, outputLog: outputLog, ledger: ledger, inputLog: inputLog,
                completionClock: completionClock)
            controller.reportWatermark = watermark
            lifecycle.send(.linesRequested)
            try afterRequest(controller)
        } catch {
            Terminal.error("\(error)")
            lifecycle.send(.selfTestFailed)
            throw ExitStatus.gpioError
        }

        let journal = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil
        let printer: any SimulationReporter<TurnstileApplication> = json
            ? JSONReporter()
            : journal ? JournalReporter(logger: logger) as any SimulationReporter<TurnstileApplication>
            : TextReporter(colors: Terminal.wantsColor, command: "run", header: "board \(boardFile.name) (\(board)), chip \(chipText)")
        for role in OutputRole.allCases {
            if let level = controller.output(role.name) { printer.output(role.name, value: level, at: .zero) }
        }
        let origin = source.startInstant()
        do {
            // The self-test: every line requested (above), the relay held locked by the
            // request itself, and every input read.
            try controller.start(at: origin)
            guard controller.output(.lock) == true || controller.state == .emergency else {
                throw GPIOError.invalidRequest(chip: chipText, line: nil, reason: "the lock did not start locked")
            }
        } catch {
            Terminal.error("\(error)")
            lifecycle.send(.selfTestFailed)
            controller.stop(at: source.now())
            throw ExitStatus.gpioError
        }
        var recorder: FlightRecorder?
        if let record {
            do {
                recorder = try FlightRecorder(path: record, board: boardFile, boardPath: board, origin: origin)
            } catch {
                Terminal.error("\(error)")
                controller.stop(at: source.now())
                throw ExitStatus.badInput
            }
        }
        var storeRecorder: TurnstileStoreRecorder?
        if let store {
            do {
                let found = store.pendingUnwritten
                let totals = try store.beginSession(monotonicOrigin: origin, wallClockOrigin: Date())
                if let found {
                    logger.notice("\(store.path): took in \(found.total) count(s) a stopped run could not write (\(found.summary)) from \(store.unwrittenPath), and removed it")
                }
                status.publishDurable(counters: totals.counters, credit: totals.credit)
                if totals["creditsVoidedByRestart"] > 0 {
                    logger.notice("\(store.path): \(totals["creditsVoidedByRestart"]) credit(s) in all were standing when a run ended; counted as creditsVoidedByRestart")
                }
            } catch {
                Terminal.error("\(error)")
                lifecycle.send(.selfTestFailed)
                controller.stop(at: source.now())
                throw ExitStatus.storeError
            }
            let recorder = TurnstileStoreRecorder(
                store: store, ledger: ledger, doorbell: watermark.doorbell,
                onCommit: { totals in status.publishDurable(counters: totals.counters, credit: totals.credit) },
                onFailure: { error in
                    logger.error("\(error); the counts wait in memory and the write is tried again until it succeeds")
                    lifecycle.send(.storeLost)
                },
                onRecovered: { recovery in
                    var line = "\(store.path) writes again after \(recovery.outage.secondsText) s: \(recovery.committedEntries) waiting step(s) committed"
                    if recovery.detailLost > 0 {
                        line += "; \(recovery.detailLost) step(s) waited past \(TurnstileStoreRecorder.maximumPendingEntries) and are in the totals without their own rows"
                    }
                    logger.notice("\(line)")
                    lifecycle.send(.storeRecovered)
                })
            recorder.start()
            storeRecorder = recorder
        }
        let metrics = TurnstileMetrics()
        let reporter = RunReporter(
            trace: trace, outputLog: outputLog, watermark: watermark, inputLog: inputLog, ledger: store == nil ? ledger : nil, status: status,
            lostEdges: { [status] in status.snapshot().lostEdges }, origin: origin, printer: printer,
            warnings: warnings, recorder: recorder, notifier: notifier, onLockLatency: { metrics.recordLockLatency(nanoseconds: $0) })
        var control: ControlServer?
        if let controlSocket {
            let handler = ControlHandler(status: status, inbox: inbox, simulated: boardFile.backend == .sim, warnings: warnings)
            do {
                control = try ControlServer(path: controlSocket, group: controlGroup, onDrop: { logger.warning("\($0)") }) { request, peer in
                    handler.answer(request, from: peer)
                }
                logger.info("control socket \(controlSocket) (group \(controlGroup ?? "of the daemon"), mode 0660)")
            } catch {
                Terminal.error("\(error)")
                controller.stop(at: source.now())
                storeRecorder?.stopAndWait()
                throw ExitStatus.badInput
            }
        }
        reporter.publishTransition = { [control] summary in control?.publish(summary) }
        reporter.start()
        lifecycle.send(.selfTestPassed)
        status.publishLoop(state: controller.state, events: controller.statistics.dispatched, lostEdges: controller.lostEdges)

        let loop = EventLoop(
            controller: controller, source: source, inbox: inbox, status: status, lifecycle: lifecycle,
            notifier: notifier, warnings: warnings, stopAt: stopAt)
        let json = self.json
        let service = ControllerService(
            loop: loop, controller: controller, source: source, inbox: inbox, lifecycle: lifecycle,
            announceReady: { [state = controller.state, failMode = controller.failMode] in
                notifier.ready(status: "running: \(state.name)")
                if json {
                    print(#"{"type":"ready","state":"\#(state.name)","chip":"\#(chipText)"}"#)
                }
                logger.info("running; SIGTERM or SIGINT stops (the lock then goes \(failMode == .secure ? "locked" : "released"): fail_mode \(failMode.rawValue)), SIGHUP reloads the timings")
            },
            reportUnplayed: { logger.warning("\($0)") }
        ) { stoppedAt in
            notifier.stopping(status: "draining")
            reporter.stopAndWait(end: stoppedAt)
            // Every count the controller made, committed before the lines are released; where
            // the controller stood goes last, in case its ring lost the last steps.
            let closing = LedgerEntry<TurnstileApplication>(
                time: stoppedAt, state: controller.state, gauges: controller.gaugeValues, counters: controller.counterValues, cause: nil)
            if let ending = storeRecorder?.stopAndWait(closingEntry: closing) { Self.report(ending, lostSteps: ledger.lostCount, logger: logger) }
            if let store { try? store.endSession(at: Date()) }
            control?.stop()
        }
        let signalService = SignalService(
            boardPath: board, running: boardFile, inbox: inbox, logger: logger, signals: signals.signals)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: service, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup),
            .init(service: signalService),
        ]
        if !noHttp {
            let endpoint = http
            let server = StatusServer(
                host: endpoint.host, port: endpoint.port, metrics: metrics, logger: logger,
                snapshot: { status.snapshot() })
            services.append(.init(service: StatusService(server: server, logger: logger, endpoint: endpoint)))
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services,
            // None: the trap (SignalService) has every signal from the start of `main`.
            gracefulShutdownSignals: [],
            logger: Logger(label: "turnstiled.services", factory: { _ in SwiftLogNoOpLogHandler() })))
        try await group.run()
        let loopAllocations = service.loopAllocations

        let ending = service.ending ?? .stopped
        let stoppedAt = service.stoppedAt ?? source.now()
        let reason: String
        switch ending {
        case .stopped: reason = "stopped"
        case .gpioError(let error): reason = "GPIO error"; Terminal.error("the controller stopped: \(error)")
        case .waitFailed(let code): reason = "wait failed"; Terminal.error("the event loop stopped: waiting failed: \(SystemErrno.describe(code))")
        }
        let failLevel = controller.failMode == .secure ? 1 : 0
        if json {
            let allocations: String = loopAllocations.map { #","loopAllocations":\#($0)"# } ?? ""
            var latency = ""
            if let l = reporter.lockLatency {
                latency = #","lockLatencyMicroseconds":{"samples":\#(l.samples),"p50":\#(l.p50),"p99":\#(l.p99),"max":\#(l.max)}"#
            }
            print(#"{"type":"stopped","reason":"\#(reason)","lock":\#(failLevel),"lostEdges":\#(controller.lostEdges),"outputWriteFailures":\#(controller.outputWriteFailures),"events":\#(controller.statistics.dispatched)\#(allocations)\#(latency)}"#)
        } else {
            var line = "\(reason): lock driven to \(failLevel) (fail_mode \(controller.failMode.rawValue)), lines released"
            if controller.lostEdges > 0 { line += "; \(controller.lostEdges) input edge(s) were lost" }
            if let loopAllocations { line += "; allocations while running: \(loopAllocations)" }
            if let latency = reporter.lockLatency {
                line += "; edge-to-lock latency over \(latency.samples) writes: p50 \(latency.p50) µs, p99 \(latency.p99) µs, max \(latency.max) µs"
            }
            logger.info("\(line)")
        }
        // --script's expect lines, checked as the run reached them: each failure named, and
        // "every expect held" claimed only when every one was reached.
        let expectations = source.expectations
        for failure in expectations.failures { printer.expectationFailed(failure) }
        if expectations.unchecked > 0 {
            Terminal.error("\(expectations.unchecked) expect line(s) of \(script ?? "the script") were not reached: the run stopped at \(stoppedAt.duration(since: origin).secondsText) s")
        }
        printer.finished(SimulationSummary<TurnstileApplication>(
            state: controller.state, gauges: controller.gaugeValues, counters: controller.counterValues,
            endTime: stoppedAt.duration(since: origin), failedExpectations: expectations.failures.count,
            checkedExpectations: expectations.unchecked > 0 ? 0 : expectations.checked))
        guard case .stopped = ending else { throw ExitStatus.gpioError }
        if !expectations.failures.isEmpty { throw ExitStatus.expectationFailed }
    }

    /// Says loudly what the store could not take at the stop, and where it is kept.
    private static func report(_ ending: TurnstileStoreRecorder.Ending, lostSteps: Int, logger: Logger) {
        if lostSteps > 0 {
            logger.warning("the ledger ring was full for \(lostSteps) step(s): their counts are in the totals, without their own rows")
        }
        guard case .unwritten(let counts, let path, let error, let keepError) = ending else { return }
        if let keepError {
            logger.critical("\(error); at the stop the store still could not write, and the counts could not be kept either (\(keepError)): this run's counts are only in this log: \(counts.summary), state \(counts.state.name), credit \(counts.credit)")
        } else {
            logger.critical("\(error); at the stop the store still could not write \(counts.total) count(s) (\(counts.summary), credit \(counts.credit)): kept in \(path), which the next start writes into the database (stats shows them meanwhile)")
        }
    }

    private func loadScript(_ path: String, board: BoardFile) throws -> Scenario<TurnstileApplication> {
        do {
            let scenario = try Scenario<TurnstileApplication>.load(path: path, vocabulary: TurnstileSimulation.vocabulary(for: board))
            try TurnstileSimulation.checkTimings(of: board, file: self.board)
            try TurnstileSimulation.check(scenario, against: board)
            return scenario
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.badInput
        }
    }

    /// One log line per wired role: the line it resolved to and how it is requested.
    private func logLines(of board: BoardFile, on chip: GpiodChip, logger: Logger) throws(GPIOError) {
        for role in InputRole.allCases {
            guard let line = board.inputs[role.name] else { continue }
            let info = try chip.lineInfo(at: try TurnstileController.offset(of: line.line, on: chip))
            let wiring = "\(line.activeLow ? "active-low" : "active-high"), bias \(line.bias.rawValue), debounce \(line.debounce.secondsText) s"
            logger.info("  \(role.rawValue.padding(9)) input   \(info.id.description.padding(20)) \(wiring)")
        }
        for role in OutputRole.allCases {
            guard let line = board.outputs[role.name] else { continue }
            let info = try chip.lineInfo(at: try TurnstileController.offset(of: line.line, on: chip))
            logger.info("  \(role.rawValue.padding(9)) output  \(info.id.description.padding(20)) \(line.activeLow ? "active-low" : "active-high")")
        }
    }
}

/// A simulated source's time as a clock, for stamping when output writes complete.
final class SourceClock: MachineClock, @unchecked Sendable {
    // Safety: the source's `now()` reads a monotonic clock and an immutable origin.
    private let source: SimSource
    init(_ source: SimSource) { self.source = source }
    func now() -> MachineInstant { source.now() }
}

extension String {
    /// Padded with spaces to `width` (at least one space after).
    func padding(_ width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(1, width - count))
    }
}
