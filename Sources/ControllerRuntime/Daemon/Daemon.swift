import ControllerSite
import ControllerFSM
import ControllerFSMGpiod
import ControllerFSMSim
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import ServiceLifecycle
import ControllerHost
import ControllerSimulation
import ControllerDaemon
import ControllerHTTP
import ControllerStore

/// An application's daemon, without a command line: the board loaded, its lines requested and
/// self-tested, the controller's event loop and the services (store, reporter, control socket,
/// status page, site) run as one group until SIGTERM or SIGINT, then the drain and the report.
/// `run` is this; a `main` of its own builds the ``RunOptions`` in code:
///
/// ```swift
/// var options = RunOptions(board: "/etc/turnstiled/board.toml")
/// options.database = "/var/lib/turnstiled/counts.sqlite"
/// Daemon<TurnstileApplication>.main(options)
/// ```
///
/// Every failure is said on standard error and thrown as its ``ControllerExit``.
public struct Daemon<App: ControllerApplication>: Sendable {
    public let options: RunOptions

    public init(_ options: RunOptions) {
        self.options = options
    }

    /// Runs the daemon as the whole process: takes its signals and its executor on the main
    /// thread before any task starts (a stop signal that came while it started is then obeyed,
    /// with the outputs' stop drive), runs it, and exits with its status. Call it from `main`,
    /// before anything asynchronous.
    public static func main(_ options: RunOptions) -> Never {
        Terminal.program = App.daemonName
        DaemonProcess.takeSignalsAndExecutor()
        DaemonProcess.start {
            do throws(ControllerExit) {
                try await Daemon(options).run()
                return DaemonProcess.flushedStandardOutput()
            } catch {
                return error.rawValue
            }
        }
    }

    /// Runs the daemon until SIGTERM or SIGINT (or the script's end, with
    /// ``RunOptions/stopAtEnd``): the options validated (``RunOptions/validate(_:)``), the journal or standard error as the
    /// log, standard output line-buffered. The signals are the process's (``main(_:)`` takes
    /// them early; this takes them if nobody did).
    public func run() async throws(ControllerExit) {
        // Before the process is touched (its signals, its log): options that do not hold leave
        // it as it was.
        try refuseInvalidOptions()
        do {
            try await runAsProcess()
        } catch let status as ControllerExit {
            throw status
        } catch {
            throw ControllerExit.failure.said("\(error)", cause: error)
        }
    }

    private func runAsProcess() async throws {
        // Installed by `main` already; taken here before anything else is touched.
        let signals: SignalTrap
        switch SignalTrap.daemon {
        case .success(let trap): signals = trap
        case .failure(let error): throw ControllerExit.gpioError.said("\(error)", cause: error)
        }
        let journal = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil
        // Under systemd, records go to the journal with their fields (MESSAGE_ID, the state, the
        // event); standard error takes what the journal's socket does not.
        if journal, let native = JournalLogHandler.factory(identifier: App.daemonName) {
            LoggingSystem.bootstrap(native)
        } else {
            LoggingSystem.bootstrap(PlainLogHandler.factory(journal: journal))
        }
        let logger = Logger(label: App.daemonName)
        Syscalls.lineBufferStandardOutput()
        // A reader of standard output that goes away must not kill the controller mid-run
        // (without the fail-mode drive): writes then fail quietly instead.
        Syscalls.ignoreBrokenPipes()
        try await serveValidated(logger: logger, signals: signals.signals, journal: journal, printer: nil)
    }

    /// The one validation (``RunOptions/validate(_:)``), said on standard error and refused
    /// with ``ControllerExit/usage``: once on each way in, `run` and `serve`.
    private func refuseInvalidOptions() throws(ControllerExit) {
        do {
            try options.validate(App.self)
        } catch {
            throw ControllerExit.usage.said("\(error)", cause: error)
        }
    }

    /// Everything `run` does except what belongs to the process (the signal handlers, the
    /// logging system, standard output's buffering): the board loaded, the daemon's services
    /// made and run as one group until `signals` brings SIGTERM or SIGINT (or the script ends,
    /// with `--stop-at-end`), then the drain and the ending's report. Options that do not hold
    /// are refused first (``ControllerExit/usage``). The in-process tests run
    /// the daemon through this, with their own signals and `printer`.
    ///
    /// - Parameters:
    ///   - logger: Where the daemon's log lines go.
    ///   - signals: The signals the daemon obeys: SIGTERM and SIGINT stop it, SIGHUP reloads.
    ///   - journal: Whether standard error is systemd's journal (the trace then goes to `logger`).
    ///   - printer: Where transitions, output changes and the summary go; by default standard
    ///     output, as `--json` and `journal` say.
    func serve(
        logger: Logger, signals: AsyncStream<Int32>, journal: Bool = false, printer: (any SimulationReporter<App>)? = nil
    ) async throws {
        try refuseInvalidOptions()
        try await serveValidated(logger: logger, signals: signals, journal: journal, printer: printer)
    }

    private func serveValidated(
        logger: Logger, signals: AsyncStream<Int32>, journal: Bool, printer: (any SimulationReporter<App>)?
    ) async throws {
        let boardFile = try loadRunnableBoard(App.self, options.board)
        try RuntimeLibraries<App>.requireForRun(realChip: boardFile.backend == .libgpiod, database: options.database, mqtt: options.site.connection.url)
        switch boardFile.backend {
        case .libgpiod:
            guard options.script == nil else {
                throw ControllerExit.badInput.said(
                    "--script plays a scenario on a simulated board; \(options.board) drives real lines (backend = \"libgpiod\")")
            }
            let chip: GpiodChip
            do {
                chip = try GpiodChip.open(boardFile.chip)
            } catch {
                throw ControllerExit.of(error, otherwise: ControllerExit.gpioError).said("\(error.naming(program: App.daemonName))", cause: error)
            }
            let debouncing = chip.library.kernelDebounces ? "inputs debounced by the kernel" : "inputs debounced in software (libgpiod 1.6 cannot ask the kernel)"
            logger.info("board \(boardFile.name) (\(options.board)): chip \(chip.info), \(chip.library), \(debouncing)")
            let source = GpiodSource<App>(selector: boardFile.chip)
            try await runDaemon(
                board: boardFile, chip: chip, chipText: "\(chip.info.name) [\(chip.info.label)], libgpiod \(chip.library.version)", source: source,
                completionClock: MonotonicClock(), logger: logger, signals: signals, journal: journal, printer: printer) { controller in
                try logLines(of: boardFile, on: chip, logger: logger)
                _ = controller
            }
        case .sim:
            let scenario = try options.script.map { try loadScript($0, board: boardFile) }
            let clock = ManualClock()
            let writes = OutputWritesToPlant<App>()
            let simulated = SimulatedBoard(board: boardFile, clock: clock, seed: 1) { writes.forward($0) }
            let source = SimSource<App>(board: boardFile, chip: simulated.chip, inputOffsets: simulated.inputOffsets, script: scenario)
            writes.connect(source, roles: simulated.outputRoles)
            source.applyInitialLevels()
            let inputs = options.script.map { "inputs from \($0)" } ?? "inputs from `\(App.daemonName) ctl`"
            logger.info("board \(boardFile.name) (\(options.board)): simulated chip \(simulated.chip.info.label), real time, \(inputs)")
            try await runDaemon(
                board: boardFile, chip: simulated.chip, chipText: "\(simulated.chip.info.name) [\(simulated.chip.info.label)]",
                source: source, completionClock: SourceClock(source), logger: logger, signals: signals, journal: journal, printer: printer,
                stopAt: options.stopAtEnd ? source.scriptEnd : nil) { _ in }
        }
    }

    /// The daemon on any chip: its parts made and the self-test passed, step by step (a failure
    /// exits with its status before anything runs), then its services as one group, whose
    /// shutdown is the drain.
    private func runDaemon<Source: EventSource>(
        board boardFile: Board<App>, chip: Source.Chip, chipText: String, source: Source, completionClock: any MachineClock,
        logger: Logger, signals: AsyncStream<Int32>, journal: Bool, printer: (any SimulationReporter<App>)?,
        stopAt: MachineInstant? = nil, afterRequest: (Controller<App, Source.Chip>) throws -> Void
    ) async throws where Source.App == App {
        let parts = try makeParts(board: boardFile, chipText: chipText, logger: logger)
        // The store first: a damaged database is refused before any line is touched.
        let store = try StoreService<App>.open(options.database, retentionDays: options.retentionDays, parts: parts)
        defer { try? store?.close() }
        let rings = ControllerRings<App, Source.Chip>(recordingInputs: options.record != nil)
        let lines = try LinesService(
            chip: chip, board: boardFile, rings: rings, completionClock: completionClock, lifecycle: parts.lifecycle, afterRequest: afterRequest)
        let controller = lines.controller
        let printer = printer ?? makePrinter(board: boardFile, chipText: chipText, journal: journal, logger: logger)
        let origin = try lines.selfTest(source: source, chipText: chipText, printer: printer)
        let readiness = ReadinessGate(waitingFor: options.http == nil ? [] : [StatusService.readinessName], sleep: { await DaemonExecutor.sleep(for: $0) })
        let loop = ControllerService(
            controller: controller, source: source, parts: parts, stopAt: stopAt,
            announceReady: announceReady(
                state: controller.state, settings: controller.settings, chipText: chipText,
                originUnixNanoseconds: Self.unixNanoseconds(of: origin, now: source.now()), logger: logger),
            readiness: readiness,
            reportUnplayed: { logger.warning("\($0)") })
        let abandon = { lines.abandon(at: source.now()) }
        let recording = try openRecording(board: boardFile, origin: origin, abandon: abandon)
        let handler = ControlHandler(status: parts.status, inbox: parts.inbox, simulated: boardFile.backend == .sim, warnings: parts.warnings)
        let siteSettings: SiteSettings.Resolved?
        do {
            // Again with the board's name, which the node's default id is made of.
            siteSettings = try options.site.resolve(boardName: boardFile.name, daemon: App.daemonName, hasDatabase: store != nil)
        } catch {
            let stop = ControllerExit.usage.said("\(error)", cause: error)
            abandon()
            throw stop
        }
        let publisher = store.flatMap { store in
            siteSettings.map { settings in
                SitePublisher<App>(
                    store: store, topics: settings.topics,
                    discovery: settings.discoveryPrefix.map { SiteDiscovery<App>(prefix: $0, topics: settings.topics) },
                    status: parts.status, logger: logger
                ) {
                    handler.answer($0, from: "MQTT")
                }
            }
        }
        let storeService = try store.map { store in
            try StoreService<App>(
                beginning: store, ledger: rings.ledger, doorbell: rings.watermark.doorbell, origin: origin, parts: parts,
                onCommit: { [publisher] totals in publisher?.committed(totals) },
                closingEntry: {
                    LedgerEntry<App>(time: loop.stoppedAt, state: controller.state, gauges: controller.gaugeValues, counters: controller.counterValues, cause: nil)
                },
                abandon: abandon)
        }
        let metrics = ControllerMetrics<App>()
        metrics.recordBuildInfo(
            version: RuntimeVersion.text,
            libgpiod: boardFile.backend == .libgpiod ? ((try? GpiodLibrary.current()).map { "\($0)" } ?? "none") : "none")
        let reporter = RunReporter<App>(
            rings: rings, drainsLedger: store == nil, parts: parts, origin: origin, printer: printer, recorder: recording, metrics: metrics)
        if let publisher, let siteSettings {
            do {
                try publisher.start(configuration: siteSettings.configuration)
            } catch {
                let stop = ControllerExit.of(error, otherwise: ControllerExit.badInput).said("--mqtt: \(error)", cause: error)
                abandon()
                storeService?.abandon()
                throw stop
            }
        }
        let control = try openControlSocket(handler: handler, logger: logger) {
            abandon()
            storeService?.abandon()
        }
        parts.lifecycle.send(.selfTestPassed)
        parts.status.publishLoop(
            state: controller.state, events: controller.statistics.dispatched, lostEdges: controller.lostEdges,
            outputOverrides: controller.outputOverrides, overrideCodes: controller.overrideCodes,
            conditionsHeldByLine: controller.conditionsHeldByLine,
            outputLevels: controller.outputLevels, wiredOutputs: controller.wiredOutputs, activeStates: controller.activeStateBits,
            inputsOn: controller.inputsOn)
        reporter.publishTransition = { [control] summary in control?.publish(summary) }
        reporter.start()

        try await DaemonServiceGroup.make(
            loop: loop,
            drain: [
                SystemdService(notifier: parts.notifier, readyStatus: "running: \(controller.state.name)", readiness: readiness),
                ReporterService<App>(reporter: reporter, stoppedAt: { loop.stoppedAt }),
                storeService,
                control.map { ControlSocketService(server: $0) },
                lines,
                publisher.map { SiteService(publisher: $0) },
            ],
            alongside: [
                SignalService(
                    signals: signals, logger: logger, usage: "SIGTERM or SIGINT stops \(App.daemonName), SIGHUP reloads its settings",
                    stop: { [inbox = parts.inbox] in inbox.requestStop() },
                    reload: { [reload = BoardReload<App>(
                        boardPath: options.board, running: boardFile, inbox: parts.inbox, logger: logger, notifier: parts.notifier, clock: MonotonicClock())] in reload() }),
                options.http.map { http in StatusService(
                    server: StatusServer(host: http.host, port: http.port, metrics: metrics, logger: logger, snapshot: { parts.status.snapshot() }),
                    logger: logger, readiness: readiness) },
            ]
        ).run()
        try RunEnding(
            loop: loop, controller: controller, source: source, reporter: reporter, printer: printer, origin: origin, json: options.json,
            script: options.script, logger: logger
        ).report()
    }

    /// The wall-clock time of the controller's instant `instant`, in nanoseconds since 1970 UTC.
    private static func unixNanoseconds(of instant: MachineInstant, now: MachineInstant) -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1e9).rounded()) - (now.nanoseconds &- instant.nanoseconds)
    }

    /// The ready record (with `--json`) and the log's "running" line, for when the loop starts.
    /// `originUnixNanoseconds`: when the trace's `t` is 0, on the wall clock, for a reader that
    /// lines the trace up with other clocks (the site test's emergency latency).
    private func announceReady(
        state: App.State, settings: App.Settings, chipText: String, originUnixNanoseconds: Int64, logger: Logger
    ) -> () -> Void {
        let json = options.json
        // ` (then lock = 1, arm held: fail_mode secure)`: what the stop drives, and the choices
        // in force that decide it.
        let stop = StopLevels<App>(settings)
        let driven = stop.outputs.map { output, level in
            "\(output.role) = \(level ? 1 : 0)" + (output.meaning.map { ", \($0.callsLevel(level))" } ?? "")
        }
        let stopping = driven.isEmpty ? "" : " (then \(driven.joined(separator: "; "))"
            + (stop.choices.isEmpty ? "" : ": " + stop.choices.joined(separator: ", ")) + ")"
        return {
            if json {
                print(JSONLine(type: "ready").string("state", state.name).string("chip", chipText).int("originUnixNanoseconds", originUnixNanoseconds).text)
            }
            logger.info("running; SIGTERM or SIGINT stops\(stopping), SIGHUP reloads the settings")
        }
    }

    private func loadScript(_ path: String, board: Board<App>) throws -> Scenario<App> {
        do {
            let scenario = try Scenario<App>.load(path: path, vocabulary: Simulation<App>.vocabulary(for: board))
            try Simulation<App>.checkTimings(of: board, file: options.board)
            try Simulation<App>.check(scenario, against: board)
            return scenario
        } catch {
            throw ControllerExit.badInput.said("\(error)", cause: error)
        }
    }

    /// One log line per wired role: the line it resolved to and how it is requested.
    private func logLines(of board: Board<App>, on chip: GpiodChip, logger: Logger) throws(GPIOError) {
        let width = (App.inputs.map(\.role.rawValue.count) + App.outputs.map(\.role.rawValue.count)).max() ?? 0
        for role in App.inputs.map(\.role) {
            guard let line = board.inputs[role] else { continue }
            let info = try chip.lineInfo(at: try Controller<App, GpiodChip>.offset(of: line.line, on: chip))
            let wiring = "\(line.activeLow ? "active-low" : "active-high"), bias \(line.bias.rawValue), debounce \(line.debounce.secondsText) s"
            logger.info("  \(role.rawValue.padding(width)) input   \(info.id.description.padding(20)) \(wiring)")
        }
        for role in App.outputs.map(\.role) {
            guard let line = board.outputs[role] else { continue }
            let info = try chip.lineInfo(at: try Controller<App, GpiodChip>.offset(of: line.line, on: chip))
            logger.info("  \(role.rawValue.padding(width)) output  \(info.id.description.padding(20)) \(line.activeLow ? "active-low" : "active-high")")
        }
    }
}

/// A simulated source's time as a clock, for stamping when output writes complete.
final class SourceClock<Source: EventSource>: MachineClock, @unchecked Sendable {
    // Safety: the source's `now()` reads a monotonic clock and an immutable origin.
    // Generic, not `any EventSource`: it stamps every output write's completion.
    private let source: Source
    init(_ source: Source) { self.source = source }
    func now() -> MachineInstant { source.now() }
}

/// The simulated chip's output writes, handed to the source's plant. The chip reports a write
/// on the thread that made it: the start-up's, then the event loop's, never two at once.
final class OutputWritesToPlant<App: ControllerApplication>: @unchecked Sendable {
    // Weak: the source holds the chip, whose output sink holds this.
    private weak var source: SimSource<App>?
    private var roles: [GPIOLineOffset: RoleName] = [:]

    func connect(_ source: SimSource<App>, roles: [GPIOLineOffset: RoleName]) {
        self.source = source
        self.roles = roles
    }

    func forward(_ change: SimOutputChange) {
        guard let role = roles[change.offset] else { return }
        source?.outputWritten(role, change.value, at: change.time)
    }
}
