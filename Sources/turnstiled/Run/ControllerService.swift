import ControllerFSM
import Foundation
import Logging
import ServiceLifecycle
import ControllerHost
import Turnstile
import ControllerDaemon

/// The event loop as a service of the daemon's group: it runs on a thread of its own (the
/// loop blocks in `ppoll`, which no task may do) until SIGTERM or SIGINT asks the group to shut
/// down; then it drains in order — the event in hand finished, the lock driven to the board's
/// fail-mode level and held, every count made durable, the lines released.
final class ControllerService<Source: EventSource>: Service, @unchecked Sendable {
    // Safety: `ending` and `loopAllocations` are written by the loop's thread before the
    // continuation resumes and read after `run()` returns.
    /// How long the lock is held at the fail-mode level before the lines are released: longer
    /// than a relay's operate time (typically 5–15 ms).
    static var failModeHold: Duration { .milliseconds(50) }

    private let loop: EventLoop<Source>
    private let controller: TurnstileController<Source.Chip>
    private let source: Source
    private let inbox: CommandInbox
    private let lifecycle: LifecycleHolder
    /// Makes every count durable and stops the threads that drain the rings, given when the
    /// loop stopped.
    private let drainRings: (MachineInstant) -> Void
    /// Told, at the stop, what had been accepted and was not played: queued commands and
    /// simulated pulses still waiting for their line.
    private let reportUnplayed: (String) -> Void
    /// Says the daemon is ready (sd_notify, the JSON ready line, the log): called when the
    /// group runs this service. The signals are trapped since `main` began (SignalTrap), so a
    /// supervisor's stop signal at any moment is a drain, never the default action.
    private let announceReady: () -> Void
    /// Counts the loop thread's allocations, when the test allocator is preloaded.
    private let probe = AllocationProbe()
    private(set) var ending: EventLoop<Source>.Ending?
    /// The event loop thread's heap allocations from its first turn to its last (`nil` without
    /// the preloaded counter): measured on that thread, the only one that must not allocate.
    private(set) var loopAllocations: UInt64?
    private(set) var stoppedAt: MachineInstant?

    init(
        loop: EventLoop<Source>, controller: TurnstileController<Source.Chip>, source: Source, inbox: CommandInbox,
        lifecycle: LifecycleHolder, announceReady: @escaping () -> Void, reportUnplayed: @escaping (String) -> Void,
        drainRings: @escaping (MachineInstant) -> Void
    ) {
        self.reportUnplayed = reportUnplayed
        self.announceReady = announceReady
        self.loop = loop
        self.controller = controller
        self.source = source
        self.inbox = inbox
        self.lifecycle = lifecycle
        self.drainRings = drainRings
    }

    func run() async {
        announceReady()
        let loop = self.loop
        let ending = await withGracefulShutdownHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<EventLoop<Source>.Ending, Never>) in
                let thread = Thread { [self] in
                    probe.begin()
                    let ending = loop.run()
                    loopAllocations = probe.end()
                    continuation.resume(returning: ending)
                }
                thread.name = "event loop"
                thread.start()
            }
        } onGracefulShutdown: { [inbox] in
            inbox.requestStop()
        }
        self.ending = ending
        lifecycle.send(.stopRequested)
        let now = source.now()
        stoppedAt = now
        controller.driveFailMode(at: now)
        if let unplayed = Self.unplayed(commands: inbox.takeLeftovers(), pulses: source.unstartedPulses(at: now)) {
            reportUnplayed(unplayed)
        }
        // Keep driving the fail-mode level long enough for a relay to switch before the line
        // is released to its pull (which the wiring should make the same level anyway).
        MonotonicClock.sleep(nanoseconds: Self.failModeHold.nanosecondCount)
        drainRings(now)
        controller.releaseLines()
        lifecycle.send(.drained)
    }

    /// What was accepted and will not be played, in words; nil when nothing.
    static func unplayed(commands: [DaemonCommand], pulses: [(role: InputRole, count: Int)]) -> String? {
        var parts = pulses.map { "\($0.count) pulse(s) on the \($0.role.rawValue) line" }
        for command in commands {
            switch command {
            case .event(let event): parts.append("the command \(event.name)")
            case .pulse(let role): parts.append("a pulse on the \(role.rawValue) line")
            case .retime: parts.append("a reload of the timings")
            case .stop: break
            }
        }
        guard !parts.isEmpty else { return nil }
        return "stopped before playing what had been accepted: \(parts.joined(separator: ", ")) waited and never reached the controller "
            + "(a pulse already under way at the stop is counted only if its edge had settled)"
    }
}

/// The daemon's signals, from the trap that took them since `main` began: SIGTERM and SIGINT
/// stop the event loop (which then drives the fail mode and drains, and the group ends with
/// it); SIGHUP reads the board file again and takes its `[turnstile]` timings and fail mode (a
/// board whose lines changed is refused — that needs a restart — and the running configuration
/// stays); any other is logged and ignored. It runs until the group shuts down, so a signal
/// during the drain is logged, not lost; after that the trap still holds them, so no signal
/// ever ends the daemon by its default action.
struct SignalService: Service {
    let boardPath: String
    let running: BoardFile
    let inbox: CommandInbox
    let logger: Logger
    let signals: AsyncStream<Int32>

    func run() async {
        var stopping = false
        for await signal in signals.cancelOnGracefulShutdown() {
            let name = SignalTrap.name(of: signal)
            switch SignalTrap.meaning(of: signal) {
            case .stop where stopping:
                logger.notice("\(name): already stopping")
            case .stop:
                stopping = true
                inbox.requestStop()
            case .reload where stopping:
                logger.notice("\(name): stopping; the board file is not read again")
            case .reload:
                reload()
            case .ignored:
                logger.notice("\(name) ignored: SIGTERM or SIGINT stops turnstiled, SIGHUP reloads its timings")
            }
        }
    }

    private func reload() {
        let board: BoardFile
        do {
            board = try BoardFile.load(path: boardPath)
        } catch {
            logger.warning("SIGHUP: \(error); the running configuration stays")
            return
        }
        guard let difference = running.wiringDifference(from: board) else {
            inbox.post(.retime(board.turnstile))
            logger.notice("SIGHUP: \(boardPath) read again: relock_timeout \(board.turnstile.relockTimeout.secondsText) s, repair_period \(board.turnstile.repairPeriod.secondsText) s, jam_timeout \(board.turnstile.jamTimeout.secondsText) s, alarm_pulse \(board.turnstile.alarmPulse.secondsText) s, fail_mode \(board.turnstile.failMode.rawValue)")
            return
        }
        logger.warning("SIGHUP: \(boardPath) refused: \(difference) changed, which needs a restart (systemctl restart turnstiled); the running configuration stays")
    }
}

extension BoardFile {
    /// What differs between two boards beyond their `[turnstile]` timings, if anything.
    func wiringDifference(from other: BoardFile) -> String? {
        if chip != other.chip { return "the chip" }
        if backend != other.backend { return "the backend" }
        if consumer != other.consumer { return "the consumer" }
        if inputs != other.inputs { return "the [inputs] lines" }
        if outputs != other.outputs { return "the [outputs] lines" }
        if sim != other.sim { return "the [sim] section" }
        return nil
    }
}
