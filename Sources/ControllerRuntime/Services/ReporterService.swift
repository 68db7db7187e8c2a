import ControllerHost
import ControllerFSM
import ServiceLifecycle

/// The run's report as a service of the daemon's group: the reporting thread (``RunReporter``:
/// the trace printed or logged, status' transitions, the flight recorder, lost edges) runs from
/// the end of the start-up; in the drain, right after systemd hears of the stop, it reports
/// what is left and closes the recording at the instant the loop stopped — before the store
/// commits and the control socket closes, so a follower and the recording see every step.
struct ReporterService<App: ControllerApplication>: Service {
    let reporter: RunReporter<App>
    /// When the event loop stopped; read in the drain, after it did.
    let stoppedAt: @Sendable () -> MachineInstant

    func run() async {
        try? await gracefulShutdown()
        reporter.stopAndWait(end: stoppedAt())
    }
}
