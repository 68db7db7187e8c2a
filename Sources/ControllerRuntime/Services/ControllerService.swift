import ControllerFSM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServiceLifecycle
import ControllerHost
import ControllerDaemon

/// The event loop as a service of the daemon's group: it runs on a thread of its own (the loop
/// blocks in `ppoll`, which no task may do) until a stop request (SIGTERM, SIGINT, the end of a
/// script) or a GPIO error ends it; then it finishes the event in hand, drives the lock to the
/// board's fail-mode level and holds it, and returns — which makes the group drain the services
/// behind it in order (systemd, the report, the store, the control socket, the lines).
final class ControllerService<Source: EventSource>: Service, @unchecked Sendable {
    // Safety: `ending`, `loopAllocations` and `stopInstant` are written by the loop's thread and
    // this service's task before `run()` returns, and read by the drain and the summary after.
    /// How long the lock is held at the fail-mode level before the drain goes on to release the
    /// lines: longer than a relay's operate time (typically 5–15 ms).
    static var failModeHold: Duration { .milliseconds(50) }

    private let loop: EventLoop<Source>
    private let controller: Controller<Source.App, Source.Chip>
    private let source: Source
    private let inbox: DaemonInbox<Source.App>
    private let lifecycle: LifecycleHolder
    /// Told, at the stop, what had been accepted and was not played: queued commands and
    /// simulated pulses still waiting for their line.
    private let reportUnplayed: (String) -> Void
    /// Says the daemon is ready (the JSON ready line, the log; systemd hears it from its own
    /// service): called when the group runs this service. The signals are trapped since `main`
    /// began (SignalTrap), so a supervisor's stop signal at any moment is a drain, never the
    /// default action.
    private let announceReady: () -> Void
    /// What `announceReady` waits for.
    private let readiness: ReadinessGate
    /// Counts the loop thread's allocations, when the test allocator is preloaded.
    private let probe = AllocationProbe()
    private(set) var ending: EventLoop<Source>.Ending?
    /// The event loop thread's heap allocations from its first turn to its last (`nil` without
    /// the preloaded counter): measured on that thread, the only one that must not allocate.
    private(set) var loopAllocations: UInt64?
    private var stopInstant: MachineInstant?

    /// `stopAt`: when a script ends and the daemon should stop by itself (`--stop-at-end`).
    init(
        controller: Controller<Source.App, Source.Chip>, source: Source, parts: DaemonParts<Source.App>, stopAt: MachineInstant?,
        announceReady: @escaping () -> Void, readiness: ReadinessGate = ReadinessGate(waitingFor: []),
        reportUnplayed: @escaping (String) -> Void
    ) {
        loop = EventLoop(
            controller: controller, source: source, inbox: parts.inbox, status: parts.status, lifecycle: parts.lifecycle,
            notifier: parts.notifier, warnings: parts.warnings, stopAt: stopAt)
        self.reportUnplayed = reportUnplayed
        self.announceReady = announceReady
        self.readiness = readiness
        self.controller = controller
        self.source = source
        inbox = parts.inbox
        lifecycle = parts.lifecycle
    }

    /// Where the run ended in the machine's time (`EventLoop.endedAt`; the source's time now,
    /// if the loop never ran).
    var stoppedAt: MachineInstant { stopInstant ?? source.now() }

    func run() async {
        // `running` (and the ready record) only once every service that serves from the start
        // serves: readiness means what it says.
        let late = await readiness.wait()
        if !late.isEmpty { reportUnplayed("\(late.sorted().joined(separator: ", ")) not up after \(ReadinessGate.patience.secondsText) s; running without it") }
        announceReady()
        let loop = self.loop
        let ending = await withGracefulShutdownHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<EventLoop<Source>.Ending, Never>) in
                DetachedThread.start(name: "event loop") { [self] in
                    probe.begin()
                    let ending = loop.run()
                    loopAllocations = probe.end()
                    continuation.resume(returning: ending)
                }
            }
        } onGracefulShutdown: { [inbox] in
            inbox.requestStop()
        }
        self.ending = ending
        lifecycle.send(.stopRequested)
        let now = source.now()
        // The machine's end is where the loop brought it (see `EventLoop.endedAt`); a loop that
        // ended on an error ends where it was.
        let end = loop.endedAt ?? now
        stopInstant = end
        controller.driveStopLevels(at: now)
        if let unplayed = Self.unplayed(commands: inbox.takeLeftovers(), pulses: source.unstartedPulses(at: end)) {
            reportUnplayed(unplayed)
        }
        // Keep driving the fail-mode level long enough for a relay to switch before the line
        // is released to its pull (which the wiring should make the same level anyway).
        MonotonicClock.sleep(nanoseconds: Self.failModeHold.nanosecondCount)
    }

    /// What was accepted and will not be played, in words; nil when nothing.
    static func unplayed(commands: [DaemonCommand<Source.App>], pulses: [(role: RoleName, count: Int)]) -> String? {
        var parts = pulses.map { "\($0.count) pulse(s) on the \($0.role.rawValue) line" }
        for command in commands {
            switch command {
            case .event(let event): parts.append("the command \(event.name)")
            case .pulse(let index): parts.append("a pulse on the \(Source.App.inputs[index].role) line")
            case .level(let index, let on): parts.append("setting the \(Source.App.inputs[index].role) line \(on ? "on" : "off")")
            case .plant(let action): parts.append("the plant's \(PlantWords<Source.App>.text(action))")
            case .retime: parts.append("a reload of the timings")
            }
        }
        guard !parts.isEmpty else { return nil }
        return "stopped before playing what had been accepted: \(parts.joined(separator: ", ")) waited and never reached the controller "
            + "(a pulse already under way at the stop is counted only if its edge had settled)"
    }
}
