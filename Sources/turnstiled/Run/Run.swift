import ArgumentParser
import ControllerFSM
import ControllerFSMGpiod
import Turnstile

#if canImport(Glibc)
import Glibc
#endif

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the turnstile on real GPIO lines, through libgpiod.",
        discussion: """
            Opens the board's chip, requests the outputs at their safe levels (the lock held) and \
            then the inputs, reads the fire-alarm level, and runs until SIGINT, SIGTERM or SIGHUP. Then it \
            stops taking events, drives the lock to the board's fail_mode level (secure: locked, \
            safe: released), releases the lines and exits 0. Transitions and output changes are \
            printed as `simulate` prints them, with times in seconds since the start.

            Exit status: 0 after a signal, 2 for a bad board file, 3 when a GPIO error stopped \
            the controller (chip not found, a line busy, permission denied, the chip gone).
            """)

    @Option(name: .long, help: ArgumentHelp("The board file (backend = \"libgpiod\").", valueName: "file"))
    var board: String

    @Flag(name: .long, help: "Write one JSON object per line instead of the readable trace.")
    var json = false

    /// Room for the records made between two drains (RunReporter.drainInterval), many times over.
    static let reportRingCapacity = 4096
    /// The signals that stop the controller in order.
    static let stopSignals = [SIGINT, SIGTERM, SIGHUP]
    /// How long the lock is held at the fail-mode level before the lines are released: longer
    /// than a relay's operate time (typically 5–15 ms).
    static let failModeHold = Duration.milliseconds(50)

    func run() throws {
        let boardFile = try loadBoard(board)
        guard boardFile.backend == .libgpiod else {
            Terminal.error("\(board): the board is simulated (backend = \"\(boardFile.backend.rawValue)\"); run it with `turnstiled simulate --board \(board)`, or set backend = \"libgpiod\" for real lines")
            throw ExitStatus.badInput
        }
        Syscalls.lineBufferStandardOutput()
        // Before any thread starts, so that every thread inherits the blocked signals and they
        // arrive only through the descriptor the event loop waits on.
        // SIGHUP too: a daemon started from a terminal that closes stops the same orderly way.
        let signalDescriptor = Syscalls.signalDescriptor(for: Self.stopSignals)
        guard signalDescriptor >= 0 else {
            Terminal.error("cannot receive SIGINT, SIGTERM and SIGHUP: \(String(cString: strerror(Syscalls.errno)))")
            throw ExitStatus.gpioError
        }
        // A reader of standard output that goes away must not kill the controller mid-run
        // (without the fail-mode drive): writes then fail quietly instead.
        Syscalls.ignoreBrokenPipes()
        defer { Syscalls.close(signalDescriptor) }

        let trace = TurnstileController<GpiodChip>.Trace(capacity: Self.reportRingCapacity)
        let outputLog = TurnstileController<GpiodChip>.OutputLog(capacity: Self.reportRingCapacity)
        let chip: GpiodChip
        let controller: TurnstileController<GpiodChip>
        do {
            chip = try GpiodChip.open(boardFile.chip)
            Terminal.log("board \(boardFile.name) (\(board)): chip \(chip.info), \(GpiodChip.libraryDescription), "
                + (GpiodChip.kernelDebounces ? "inputs debounced by the kernel" : "inputs debounced in software (libgpiod 1.6 cannot ask the kernel)"))
            controller = try TurnstileController(
                chip: chip, board: boardFile, trace: trace, outputLog: outputLog, completionClock: MonotonicClock())
            try logLines(of: boardFile, on: chip)
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.gpioError
        }

        let printer: any SimulationReporter = json
            ? JSONReporter()
            : TextReporter(colors: Terminal.wantsColor, command: "run", header: "board \(boardFile.name) (\(board)), chip \(chip.info.name) [\(chip.info.label)]")
        for role in OutputRole.allCases {
            if let level = controller.output(role) { printer.output(role, value: level, at: .zero) }
        }
        let clock = MonotonicClock()
        let origin = clock.now()
        let status = RunStatus()
        do {
            try controller.start(at: origin)
        } catch {
            Terminal.error("\(error)")
            controller.stop(at: clock.now())
            throw ExitStatus.gpioError
        }
        let reporter = RunReporter(trace: trace, outputLog: outputLog, status: status, origin: origin, printer: printer, json: json)
        reporter.start()
        if json {
            print(#"{"type":"ready","state":"\#(controller.state.name)","chip":"\#(chip.info.name)","label":"\#(chip.info.label)"}"#)
        }
        Terminal.log("running; SIGINT, SIGTERM or SIGHUP stops (the lock then goes \(boardFile.turnstile.failMode == .secure ? "locked" : "released"): fail_mode \(boardFile.turnstile.failMode.rawValue))")

        let loop = EventLoop(controller: controller, signalDescriptor: signalDescriptor, clock: clock, status: status)
        let probe = AllocationProbe()
        probe.begin()
        let ending = loop.run()
        let loopAllocations = probe.end()
        status.publish(lostEdges: controller.lostEdges, events: controller.statistics.dispatched)
        let stoppedAt = clock.now()
        controller.driveFailMode(at: stoppedAt)
        // Keep driving the fail-mode level long enough for a relay to switch before the line
        // is released to its pull (which the wiring should make the same level anyway).
        Syscalls.sleep(nanoseconds: Self.failModeHold.nanosecondCount)
        controller.releaseLines()
        reporter.stopAndWait()

        let reason: String
        switch ending {
        case .signal(let signal): reason = [SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGHUP: "SIGHUP"][signal] ?? "signal \(signal)"
        case .gpioError(let error): reason = "GPIO error"; Terminal.error("the controller stopped: \(error)")
        case .waitFailed(let code): reason = "wait failed"; Terminal.error("the event loop stopped: waiting failed: \(String(cString: strerror(code)))")
        }
        let failLevel = boardFile.turnstile.failMode == .secure ? 1 : 0
        if json {
            let allocations = loopAllocations.map { #","loopAllocations":\#($0)"# } ?? ""
            let latency = reporter.lockLatency.map { #","lockLatencyMicroseconds":{"samples":\#($0.samples),"p50":\#($0.p50),"p99":\#($0.p99),"max":\#($0.max)}"# } ?? ""
            print(#"{"type":"stopped","reason":"\#(reason)","lock":\#(failLevel),"lostEdges":\#(controller.lostEdges),"outputWriteFailures":\#(controller.outputWriteFailures),"events":\#(controller.statistics.dispatched)\#(allocations)\#(latency)}"#)
        } else {
            Terminal.log("stopped (\(reason)): lock driven to \(failLevel) (fail_mode \(boardFile.turnstile.failMode.rawValue)), lines released"
                + (controller.lostEdges > 0 ? "; \(controller.lostEdges) input edge(s) were lost" : "")
                + (loopAllocations.map { "; event loop allocations: \($0)" } ?? "")
                + (reporter.lockLatency.map { "; edge-to-lock latency over \($0.samples) writes: p50 \($0.p50) µs, p99 \($0.p99) µs, max \($0.max) µs" } ?? ""))
        }
        printer.finished(SimulationSummary(
            state: controller.state, credit: controller.credit, counters: controller.counters,
            endTime: stoppedAt.duration(since: origin), failedExpectations: 0))
        if case .signal = ending { return }
        throw ExitStatus.gpioError
    }

    /// One log line per wired role: the line it resolved to and how it is requested.
    private func logLines(of board: BoardFile, on chip: GpiodChip) throws(GPIOError) {
        for role in InputRole.allCases {
            guard let line = board.inputs[role] else { continue }
            let info = try chip.lineInfo(at: try TurnstileController.offset(of: line.line, on: chip))
            Terminal.log("  \(role.rawValue.padding(9)) input   \(info.id.description.padding(20)) "
                + "\(line.activeLow ? "active-low" : "active-high"), bias \(line.bias.rawValue), debounce \(line.debounce.secondsText) s")
        }
        for role in OutputRole.allCases {
            guard let line = board.outputs[role] else { continue }
            let info = try chip.lineInfo(at: try TurnstileController.offset(of: line.line, on: chip))
            Terminal.log("  \(role.rawValue.padding(9)) output  \(info.id.description.padding(20)) "
                + "\(line.activeLow ? "active-low" : "active-high")")
        }
    }
}

extension String {
    /// Padded with spaces to `width` (at least one space after).
    func padding(_ width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(1, width - count))
    }
}
