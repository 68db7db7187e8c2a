import ControllerFSM
import ControllerHost
import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's one event-loop thread, the only one that touches the controller. It waits in
/// one `ppoll` on the input lines' descriptor and the command inbox, with the earliest of the
/// controller's deadlines, the source's, the watchdog's and a lost chip's retry as the timeout,
/// and hands everything to the controller stamped with the kernel's time. Nothing here
/// allocates once the loop runs.
final class EventLoop<Source: EventSource>: @unchecked Sendable {
    // Safety: created on the main task, then run and touched by the loop's thread only.
    enum Ending {
        /// A stop request (SIGTERM, SIGINT), or the end of a script.
        case stopped
        case gpioError(GPIOError)
        case waitFailed(errno: Int32)
    }

    /// How often a lost chip is looked for again.
    static var reopenInterval: Duration { .seconds(1) }

    private let controller: Controller<Source.App, Source.Chip>
    private let source: Source
    private let inbox: DaemonInbox<Source.App>
    private let status: StatusHub<Source.App>
    private let lifecycle: LifecycleHolder
    private let notifier: SystemdNotifier
    private let warnings: DaemonWarnings
    /// The command inbox, then the input request's descriptor while the chip is there.
    private let descriptors: UnsafeMutablePointer<pollfd>
    private var chipLost = false
    /// The controller's unsettled steps and lost sends already reported.
    private var unsettledReported = 0
    private var droppedSendsReported = 0
    private var nextReopen = Int64.max
    private var nextWatchdog = Int64.min
    private let watchdogPeriod: Int64?
    /// When the script ends and the daemon should stop by itself (`--stop-at-end`).
    private let stopAt: MachineInstant?
    /// Where the run ended in the machine's time, once the loop has returned: the instant the
    /// controller was last brought up to (every edge and deadline until then taken). The
    /// recording's `end`, the last ledger entry and the summary say this instant, not when the
    /// stop was finally handled: on a busy machine that can be much later, and a replay to it
    /// would fire deadlines the run never took.
    private(set) var endedAt: MachineInstant?

    init(
        controller: Controller<Source.App, Source.Chip>, source: Source, inbox: DaemonInbox<Source.App>, status: StatusHub<Source.App>,
        lifecycle: LifecycleHolder, notifier: SystemdNotifier, warnings: DaemonWarnings, stopAt: MachineInstant?
    ) {
        self.controller = controller
        self.source = source
        self.inbox = inbox
        self.status = status
        self.lifecycle = lifecycle
        self.notifier = notifier
        self.warnings = warnings
        self.stopAt = stopAt
        // Twice as often as systemd checks: one late turn must not look like a hang.
        watchdogPeriod = notifier.watchdogInterval.map { $0.nanosecondCount / 2 }
        descriptors = .allocate(capacity: 2)
        // The wait asks the system call layer's faults first: made here, on the starting thread
        // (a static is made on first use, and making it allocates), not on the loop's first turn.
        _ = Syscalls.faults
    }

    deinit {
        descriptors.deallocate()
    }

    /// Runs until a stop request or a GPIO error other than the chip going away.
    func run() -> Ending {
        descriptors[0] = pollfd(fd: inbox.pollDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            var deadline = Swift.min(controller.nextDeadline?.nanoseconds ?? .max, source.nextDeadline?.nanoseconds ?? .max)
            if let stopAt { deadline = Swift.min(deadline, stopAt.nanoseconds) }
            if chipLost { deadline = Swift.min(deadline, nextReopen) }
            if watchdogPeriod != nil { deadline = Swift.min(deadline, nextWatchdog) }
            var count = 1
            if !chipLost, let input = controller.pollDescriptor {
                descriptors[1] = pollfd(fd: input, events: Int16(POLLIN | POLLPRI), revents: 0)
                count = 2
            }
            // Compared, not subtracted: a deadline already due (the first watchdog's is
            // Int64.min) would wrap to a timeout of centuries.
            let before = source.now().nanoseconds
            let timeout = deadline == .max ? nil : (deadline <= before ? 0 : deadline &- before)
            let ready = Syscalls.wait(descriptors, count: count, timeout: timeout)
            if ready < 0 {
                let code = SystemErrno.current
                if code == EINTR { continue }
                return .waitFailed(errno: code)
            }
            if descriptors[0].revents != 0 { inbox.clearWakeUps() }
            let now = source.now()
            if let watchdogPeriod, now.nanoseconds >= nextWatchdog {
                notifier.watchdog()
                nextWatchdog = now.nanoseconds &+ watchdogPeriod
            }
            if chipLost && now.nanoseconds >= nextReopen { tryReattach(at: now) }
            if let stopAt, now >= stopAt {
                // The script's last instant is played (its expects checked) before stopping.
                // A command that waits was taken after it (the loop woke late): it is left for
                // the stop's report of what was accepted and not played, never played after
                // the end the recording says.
                return stop(at: stopAt)
            }
            // Not `while let command = inbox.take()`: see `hasWaitingEntry`.
            while inbox.hasWaitingEntry {
                if let error = perform(inbox.takeWaiting(), at: now) { return .gpioError(error) }
            }
            // What came before the stop request is taken first: an edge that woke the loop
            // with it is counted, a deadline already due fires, as a replay to this instant does.
            if inbox.isStopRequested { return stop(at: now) }
            if !chipLost, let error = turn(at: now) { return .gpioError(error) }
            reportUnsettledSteps()
            status.publishLoop(
                state: controller.state, events: controller.statistics.dispatched, lostEdges: controller.lostEdges,
                outputOverrides: controller.outputOverrides, overrideCodes: controller.overrideCodes,
                conditionsHeldByLine: controller.conditionsHeldByLine,
                outputLevels: controller.outputLevels, wiredOutputs: controller.wiredOutputs, activeStates: controller.activeStateBits,
                inputsOn: controller.inputsOn, unsettledSteps: controller.unsettledSteps, droppedSends: controller.statistics.droppedSends)
        }
    }

    /// The last turn, up to `instant`, and the loop's end there (`endedAt`). With the chip
    /// gone nothing can be read; the run ends at `instant` all the same.
    private func stop(at instant: MachineInstant) -> Ending {
        endedAt = instant
        if !chipLost, let error = turn(at: instant) { return .gpioError(error) }
        return .stopped
    }

    /// A machine step that did not settle degrades the daemon, naming what repeated (the
    /// controller already holds its outputs at their fail-safe levels); the loop, the control
    /// socket and the status page go on. One comparison when nothing happened.
    private func reportUnsettledSteps() {
        let dropped = controller.statistics.droppedSends
        if dropped != droppedSendsReported {
            warnings.droppedSends(new: dropped - droppedSendsReported, total: dropped)
            droppedSendsReported = dropped
        }
        let count = controller.unsettledSteps
        guard count != unsettledReported, let report = controller.unsettledReport else { return }
        unsettledReported = count
        lifecycle.machineDidNotSettle(report)
        warnings.machineUnsettled(report)
    }

    /// One turn: what the source has due, then every edge and deadline up to `now`.
    private func turn(at now: MachineInstant) -> GPIOError? {
        do {
            try source.advance(to: now, controller: controller)
            try controller.process(now: now)
            return nil
        } catch {
            return lose(error, at: now)
        }
    }

    private func perform(_ command: DaemonCommand<Source.App>, at now: MachineInstant) -> GPIOError? {
        switch command {
        case .event(let event):
            guard !chipLost else {
                warnings.refused("\(event.name): the GPIO chip is gone; nothing can be controlled until it is back")
                return nil
            }
            do {
                // A script's steps due by now come first, as their times say (and its expects
                // then see only what happened before them).
                try source.advance(to: now, controller: controller)
                switch try controller.send(event, at: now) {
                case .dispatched: break
                case .heldByLine(let role):
                    warnings.refused("\(event.name) by command: the \(role.rawValue) line is still active, and a command cannot end what the line signals; the \(Source.App.name) stays in \(controller.state.name) until the line goes inactive")
                case .alreadyInEffect:
                    warnings.refused("\(event.name) by command: already in effect, nothing changed")
                }
            } catch {
                return lose(error, at: now)
            }
        case .level(let index, let on):
            let role = Source.App.inputs[index].role
            switch source.setLevel(input: index, active: on, at: now) {
            case .scheduled: break
            case .notDrivable, .lineQueueFull: warnings.refused("set \(role) \(on ? "on" : "off"): this board cannot drive that line")
            }
        case .pulse(let index):
            let role = Source.App.inputs[index].role
            switch source.pulse(input: index, at: now) {
            case .scheduled: break
            case .notDrivable: warnings.refused("pulse \(role.rawValue): this board cannot drive that line")
            case .lineQueueFull:
                warnings.refused("pulse \(role.rawValue): \(PendingPulses.capacityPerLine) pulses already wait on the \(role.rawValue) line; this one was not played")
            }
        case .plant(let action):
            // What the plant was doing up to now happens first, as for a script's step.
            if !chipLost, let error = turn(at: now) { return error }
            switch source.perform(plant: action, controller: controller, at: now) {
            case .scheduled: break
            case .notDrivable, .lineQueueFull: warnings.refused("plant \(PlantWords<Source.App>.text(action)): this board has no simulated plant")
            }
        case .retime(let settings):
            // What came before the reload is taken with the old timings, as a replay of the
            // recording takes it (a `set` line handles everything up to its time first).
            if !chipLost, let error = turn(at: now) { return error }
            controller.retime(settings, at: now)
        }
        return nil
    }

    /// A chip that went away makes the daemon degraded and looked for every second; any other
    /// GPIO error ends the loop (and systemd restarts the daemon).
    private func lose(_ error: GPIOError, at now: MachineInstant) -> GPIOError? {
        guard case .chipGone = error else { return error }
        if !chipLost {
            chipLost = true
            // Said before the phase changes: whoever sees the daemon degraded (systemd's
            // status, /healthz, a test) can read why in the log already.
            warnings.chipLost("\(error)")
            lifecycle.send(.chipLost)
        }
        nextReopen = now.nanoseconds &+ Self.reopenInterval.nanosecondCount
        return nil
    }

    private func tryReattach(at now: MachineInstant) {
        nextReopen = now.nanoseconds &+ Self.reopenInterval.nanosecondCount
        guard let chip = source.reopen() else { return }
        do {
            try controller.reattach(to: chip, at: now)
            chipLost = false
            nextReopen = .max
            // Said before the phase changes, as when it went away.
            warnings.chipBack()
            lifecycle.send(.recovered)
        } catch {
            // Still not usable (the lines not yet there, busy): try again next time.
        }
    }
}
