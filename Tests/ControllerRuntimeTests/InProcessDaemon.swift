@testable import ControllerRuntime
import ControllerFSM
import ControllerHost
import ControllerSimulation
import ControllerTestSupport
import Testing

/// An application's daemon in this process: every service `run` wires together, from options
/// built in code, with the test's own signals, log and (when given) printer in place of the
/// process's. What only a process has (its exit status, standard error, real signals) is
/// tested on the built daemons.
final class InProcessDaemon<App: ControllerApplication>: Sendable {
    let signals: AsyncStream<Int32>.Continuation
    let finished: Task<Result<Void, any Error>, Never>
    let log = CapturedLog()

    /// A printer handed to the one task that uses it.
    private struct UncheckedPrinter: @unchecked Sendable { let printer: (any SimulationReporter<App>)? }

    /// Serves `options` until stopped; `printer` gets the trace (nil: standard output, as `run`).
    init(_ options: RunOptions, printer: (any SimulationReporter<App>)? = nil) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        signals = continuation
        let logger = log.logger
        // In a box, not a local `nonisolated(unsafe)`: Swift 6.2 does not honour that for a
        // `sending` closure.
        let printer = UncheckedPrinter(printer: printer)
        finished = Task {
            do {
                try await Daemon<App>(options).serve(logger: logger, signals: stream, printer: printer.printer)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
    }

    func send(_ signal: Int32) { signals.yield(signal) }

    /// How `serve` ended: nil when it returned, else the exit status it threw (any other error
    /// is the test's issue, and -1).
    func exitCode(sourceLocation: Testing.SourceLocation = #_sourceLocation) async -> Int32? {
        switch await finished.value {
        case .success: return nil
        case .failure(let status as ControllerExit): return status.rawValue
        case .failure(let error):
            Issue.record("serve threw \(error), not an exit status", sourceLocation: sourceLocation)
            return -1
        }
    }
}
