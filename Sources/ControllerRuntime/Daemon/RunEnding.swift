import ControllerFSM
import ControllerSimulation
import Logging
import ControllerHost

/// What `run` says once its service group has drained, and its exit status: how the loop
/// ended (the `stopped` JSON record, or the log line), the script's expects as the run reached
/// them, and the summary. Exits 3 when a GPIO error ended the loop, 1 when an expect failed.
struct RunEnding<Source: EventSource> {
    let loop: ControllerService<Source>
    let controller: Controller<Source.App, Source.Chip>
    let source: Source
    let reporter: RunReporter<Source.App>
    let printer: any SimulationReporter<Source.App>
    let origin: MachineInstant
    let json: Bool
    /// `--script`, for the line that names expects not reached.
    let script: String?
    let logger: Logger

    func report() throws {
        let stoppedAt = loop.stoppedAt
        let reason: String
        var failure: ControllerExit?
        switch loop.ending ?? .stopped {
        case .stopped: reason = "stopped"
        case .gpioError(let error):
            reason = "GPIO error"
            failure = ControllerExit.gpioError.said("the controller stopped: \(error)", cause: error)
        case .waitFailed(let code):
            reason = "wait failed"
            failure = ControllerExit.gpioError.said("the event loop stopped: waiting failed: \(SystemErrno.describe(code))")
        }
        reportStop(reason: reason)
        // --script's expect lines, checked as the run reached them: each failure named, and
        // "every expect held" claimed only when every one was reached.
        let expectations = source.expectations
        for failure in expectations.failures { printer.expectationFailed(failure) }
        if expectations.unchecked > 0 {
            Terminal.error("\(expectations.unchecked) expect line(s) of \(script ?? "the script") were not reached: the run stopped at \(stoppedAt.duration(since: origin).secondsText) s")
        }
        printer.finished(SimulationSummary<Source.App>(
            state: controller.state, gauges: controller.gaugeValues, counters: controller.counterValues,
            endTime: stoppedAt.duration(since: origin), failedExpectations: expectations.failures.count,
            checkedExpectations: expectations.unchecked > 0 ? 0 : expectations.checked))
        if let failure { throw failure }
        if !expectations.failures.isEmpty {
            // Each failure was printed above, with the run's report.
            throw ControllerExit(
                ControllerExit.expectationFailed.rawValue,
                reason: "\(expectations.failures.count) expect line(s) of \(script ?? "the script") failed")
        }
    }

    /// Where the outputs were left and what the run cost: one JSON record, or one log line.
    private func reportStop(reason: String) {
        typealias App = Source.App
        // The outputs with a stop level, at it (the turnstile's lock, by its fail_mode).
        let stop = StopLevels<App>(controller.settings)
        let loopAllocations = loop.loopAllocations
        let latencyRole = reporter.latencyRole.map(\.rawValue) ?? ""
        if json {
            var line = JSONLine(type: "stopped").string("reason", reason)
            for (output, level) in stop.outputs { line = line.level(output.role.rawValue, level) }
            line = line.int("lostEdges", controller.lostEdges).int("outputWriteFailures", controller.outputWriteFailures)
                .int("events", controller.statistics.dispatched)
            if controller.unsettledSteps > 0 { line = line.int("unsettledSteps", controller.unsettledSteps) }
            if let loopAllocations { line = line.int("loopAllocations", loopAllocations) }
            if let l = reporter.writeLatency {
                line = line.object(latencyRole + "LatencyMicroseconds", JSONLine().int("samples", l.samples).int("p50", l.p50).int("p99", l.p99).int("max", l.max))
            }
            print(line.text)
        } else {
            let driven = stop.outputs.map { "\($0.output.role) driven to \($0.level ? 1 : 0)" }.joined(separator: ", ")
            var line = "\(reason): " + (driven.isEmpty ? "" : driven + stop.choicesInParentheses + ", ") + "lines released"
            if controller.lostEdges > 0 { line += "; \(controller.lostEdges) input edge(s) were lost" }
            if let loopAllocations { line += "; allocations while running: \(loopAllocations)" }
            if let latency = reporter.writeLatency {
                line += "; edge-to-\(latencyRole) latency over \(latency.samples) writes: p50 \(latency.p50) µs, p99 \(latency.p99) µs, max \(latency.max) µs"
            }
            logger.info("\(line)")
        }
    }
}
