import ControllerDaemon
import ControllerFSM
import ControllerSimulation
import ServiceLifecycle
import ControllerHost

/// The controller's hold on the board's lines, as a service of the daemon's group. The lines are
/// requested and self-tested at start-up, before the group runs (a failure exits with its
/// status and nothing else starts); they are released last of the drain — after the fail-mode
/// hold, with every count durable and the control socket closed — which ends the lifecycle in
/// `stopped`.
final class LinesService<App: ControllerApplication, Chip: GPIOChip>: Service, @unchecked Sendable {
    // Safety: the controller is touched by the start-up, then by the event loop's thread, then
    // (after the loop stopped) by the drain; never by two at once.
    let controller: Controller<App, Chip>
    private let lifecycle: LifecycleHolder

    /// Requests every line (the outputs first, at their start-up levels), then runs
    /// `afterRequest` (the lines' log). A failure is said on standard error and exits 3.
    init(
        chip: Chip, board: Board<App>, rings: ControllerRings<App, Chip>, completionClock: any MachineClock,
        lifecycle: LifecycleHolder, afterRequest: (Controller<App, Chip>) throws -> Void
    ) throws {
        self.lifecycle = lifecycle
        do {
            controller = try Controller(
                chip: chip, board: board, trace: rings.trace, outputLog: rings.outputLog, ledger: rings.ledger,
                inputLog: rings.inputLog, completionClock: completionClock)
            controller.reportWatermark = rings.watermark
            lifecycle.send(.linesRequested)
            try afterRequest(controller)
        } catch {
            let stop = ControllerExit.gpioError.said("\(error)", cause: error)
            lifecycle.send(.selfTestFailed)
            throw stop
        }
    }

    /// The self-test: the outputs' first levels to `printer`, then the controller started at the
    /// source's time 0 — every line requested (in `init`), the relay held locked by the request
    /// itself, and every input read. Returns that time 0. A failure is said on standard error,
    /// stops the controller and exits 3.
    func selfTest<Source: EventSource>(source: Source, chipText: String, printer: any SimulationReporter<App>) throws -> MachineInstant
    where Source.Chip == Chip, Source.App == App {
        let outputs = App.outputs
        for output in outputs {
            if let level = controller.output(output.role) { printer.output(output.role, value: level, at: .zero) }
        }
        let origin = source.startInstant()
        do {
            try controller.start(at: origin)
            // Each required output the machine wants at its start-up level must have it: the
            // request itself set it (the turnstile's lock held, unless a fire alarm was read).
            for output in outputs where output.isRequired {
                let wanted = output.level(controller.configuration, controller.context)
                guard wanted != output.initialLevel || controller.output(output.role) == output.initialLevel else {
                    throw GPIOError.invalidRequest(chip: chipText, line: nil, reason: "the \(output.role) output did not start at \(output.initialLevel ? 1 : 0)")
                }
            }
        } catch {
            let stop = ControllerExit.gpioError.said("\(error)", cause: error)
            lifecycle.send(.selfTestFailed)
            controller.stop(at: source.now())
            throw stop
        }
        return origin
    }

    /// A start-up step after the self-test failed: the controller stops where it stands.
    func abandon(at now: MachineInstant) {
        controller.stop(at: now)
    }

    func run() async {
        try? await gracefulShutdown()
        controller.releaseLines()
        lifecycle.send(.drained)
    }
}
