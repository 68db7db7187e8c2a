import ServiceLifecycle

/// systemd's view of the daemon as a service of its group: `READY=1` when the group runs (the
/// self-test passed before it was made), `STOPPING=1` when the group drains — first of all the
/// services behind the event loop, so systemd hears of the stop before the rings are drained.
/// Between the two, the loop sends `WATCHDOG=1` and the lifecycle sends `STATUS=`.
public struct SystemdService: Service {
    private let notifier: SystemdNotifier
    /// `STATUS=` with `READY=1`, e.g. "running: locked".
    private let readyStatus: String
    /// What `READY=1` waits for besides the self-test (the status server listening).
    private let readiness: ReadinessGate

    public init(notifier: SystemdNotifier, readyStatus: String, readiness: ReadinessGate = ReadinessGate(waitingFor: [])) {
        self.notifier = notifier
        self.readyStatus = readyStatus
        self.readiness = readiness
    }

    public func run() async {
        await readiness.wait()
        notifier.ready(status: readyStatus)
        try? await gracefulShutdown()
        notifier.stopping(status: "draining")
    }
}
