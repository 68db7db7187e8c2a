import ControllerSite
import ArgumentParser
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

#if canImport(Glibc)
import Glibc
#endif

struct Run<App: ControllerApplication>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "run",
            abstract: "Run the \(App.name) as a daemon: on real GPIO lines through libgpiod, or on a simulated board.",
            discussion: """
            Opens the board's chip, requests the outputs at their start-up levels and then the \
            inputs, reads the level inputs (the self-test), and runs until SIGTERM or SIGINT. \
            Then it stops taking events, finishes the one in hand, drives the outputs that have \
            one to their stop level\(stopLevelsHelp), makes every count durable, releases the \
            lines and exits 0. SIGHUP reads the board file again and takes its [\(App.settings.section)] \
            settings (a board whose lines changed is refused; the running configuration stays).

            On a simulated board (backend = "sim") time is real and the inputs come from \
            --script, played in real time, or from `\(App.daemonName) ctl pulse` and `ctl set`.

            Under systemd (Type=notify) it reports READY=1 after the self-test, WATCHDOG=1 from \
            the event loop, STOPPING=1 and its state in STATUS=, and logs plain lines for the \
            journal. Transitions and output changes are printed as `simulate` prints them, \
            with times in seconds since the start.

            Exit status: 0 after SIGTERM or SIGINT (or the end of a script with \
            --stop-at-end), 1 when an expect line of the script failed (each is reported on \
            standard error with its line; expects are checked as in simulate, against \
            everything strictly before their time), 2 for a bad board file, scenario or \
            option, 3 when a GPIO error stopped the controller (chip not found, a line busy, \
            permission denied), 4 when the count database cannot be used.
            """)
    }

    /// ` (lock: as fail_mode says)`: the outputs with a stop level, for `--help`.
    private static var stopLevelsHelp: String {
        let roles = App.outputs.filter { $0.stopLevel != nil }.map(\.role.rawValue)
        return roles.isEmpty ? "" : " (\(roles.joined(separator: ", ")))"
    }

    init() {}

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

    @Option(name: .long, help: ArgumentHelp("Listen for `\(App.daemonName) ctl` on this Unix socket (mode 0660).", valueName: "path"))
    var controlSocket: String?

    @Option(name: .long, help: ArgumentHelp("The group whose members may use the control socket (default: the daemon's own).", valueName: "name"))
    var controlGroup: String?

    @OptionGroup(title: "The site's MQTT broker")
    var site: SiteOptions

    func validate() throws {
        if stopAtEnd && script == nil { throw ValidationError("--stop-at-end needs --script") }
        // The node's default id needs the board's name; everything else is checked here.
        _ = try site.resolve(boardName: "board", daemon: App.daemonName, hasDatabase: database != nil)
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
            do { try FlightRecorder<App>.checkReplaceable(record) } catch { throw ValidationError("--record: \(error)") }
        }
    }

    func run() async throws {
        // Installed by `main` already; taken here before anything else is touched.
        let signals: SignalTrap
        switch SignalTrap.daemon {
        case .success(let trap): signals = trap
        case .failure(let error): Terminal.error("\(error)"); throw ExitStatus.gpioError
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
        try await serve(logger: logger, signals: signals.signals, journal: journal)
    }

    /// Everything `run` does except what belongs to the process (the signal handlers, the
    /// logging system, standard output's buffering): the board loaded, the daemon's services
    /// made and run as one group until `signals` brings SIGTERM or SIGINT (or the script ends,
    /// with `--stop-at-end`), then the drain and the ending's report. The in-process tests run
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
        let boardFile = try loadRunnableBoard(App.self, board)
        try RuntimeLibraries<App>.requireForRun(realChip: boardFile.backend == .libgpiod, database: database, mqtt: site.connection.url)
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
                Terminal.error("\(error.naming(program: App.daemonName))")
                throw ExitStatus.of(error, otherwise: ExitStatus.gpioError)
            }
            let debouncing = chip.library.kernelDebounces ? "inputs debounced by the kernel" : "inputs debounced in software (libgpiod 1.6 cannot ask the kernel)"
            logger.info("board \(boardFile.name) (\(board)): chip \(chip.info), \(chip.library), \(debouncing)")
            let source = GpiodSource<App>(selector: boardFile.chip)
            try await runDaemon(
                board: boardFile, chip: chip, chipText: "\(chip.info.name) [\(chip.info.label)], libgpiod \(chip.library.version)", source: source,
                completionClock: MonotonicClock(), logger: logger, signals: signals, journal: journal, printer: printer) { controller in
                try logLines(of: boardFile, on: chip, logger: logger)
                _ = controller
            }
        case .sim:
            let scenario = try script.map { try loadScript($0, board: boardFile) }
            let clock = ManualClock()
            let writes = OutputWritesToPlant<App>()
            let simulated = SimulatedBoard(board: boardFile, clock: clock, seed: 1) { writes.forward($0) }
            let source = SimSource<App>(board: boardFile, chip: simulated.chip, inputOffsets: simulated.inputOffsets, script: scenario)
            writes.connect(source, roles: simulated.outputRoles)
            source.applyInitialLevels()
            let inputs = script.map { "inputs from \($0)" } ?? "inputs from `\(App.daemonName) ctl`"
            logger.info("board \(boardFile.name) (\(board)): simulated chip \(simulated.chip.info.label), real time, \(inputs)")
            try await runDaemon(
                board: boardFile, chip: simulated.chip, chipText: "\(simulated.chip.info.name) [\(simulated.chip.info.label)]",
                source: source, completionClock: SourceClock(source), logger: logger, signals: signals, journal: journal, printer: printer,
                stopAt: stopAtEnd ? source.scriptEnd : nil) { _ in }
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
        let store = try StoreService<App>.open(database, retentionDays: retentionDays, parts: parts)
        defer { try? store?.close() }
        let rings = ControllerRings<App, Source.Chip>(recordingInputs: record != nil)
        let lines = try LinesService(
            chip: chip, board: boardFile, rings: rings, completionClock: completionClock, lifecycle: parts.lifecycle, afterRequest: afterRequest)
        let controller = lines.controller
        let printer = printer ?? makePrinter(board: boardFile, chipText: chipText, journal: journal, logger: logger)
        let origin = try lines.selfTest(source: source, chipText: chipText, printer: printer)
        let readiness = ReadinessGate(waitingFor: noHttp ? [] : [StatusService.readinessName], sleep: { await DaemonExecutor.sleep(for: $0) })
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
        let siteSettings = try site.resolve(boardName: boardFile.name, daemon: App.daemonName, hasDatabase: store != nil)
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
                Terminal.error("--mqtt: \(error)")
                abandon()
                storeService?.abandon()
                throw ExitStatus.of(error, otherwise: ExitStatus.badInput)
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
                        boardPath: board, running: boardFile, inbox: parts.inbox, logger: logger, notifier: parts.notifier, clock: MonotonicClock())] in reload() }),
                noHttp ? nil : StatusService(
                    server: StatusServer(host: http.host, port: http.port, metrics: metrics, logger: logger, snapshot: { parts.status.snapshot() }),
                    logger: logger, readiness: readiness),
            ]
        ).run()
        try RunEnding(
            loop: loop, controller: controller, source: source, reporter: reporter, printer: printer, origin: origin, json: json,
            script: script, logger: logger
        ).report()
    }

    /// The ready record (with `--json`) and the log's "running" line, for when the loop starts.
    /// The wall-clock time of the controller's instant `instant`, in nanoseconds since 1970 UTC.
    private static func unixNanoseconds(of instant: MachineInstant, now: MachineInstant) -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1e9).rounded()) - (now.nanoseconds &- instant.nanoseconds)
    }

    /// `originUnixNanoseconds`: when the trace's `t` is 0, on the wall clock, for a reader that
    /// lines the trace up with other clocks (the site test's emergency latency).
    private func announceReady(
        state: App.State, settings: App.Settings, chipText: String, originUnixNanoseconds: Int64, logger: Logger
    ) -> () -> Void {
        let json = self.json
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
            try Simulation<App>.checkTimings(of: board, file: self.board)
            try Simulation<App>.check(scenario, against: board)
            return scenario
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.badInput
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
