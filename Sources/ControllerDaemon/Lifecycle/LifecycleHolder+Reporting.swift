import ControllerHost
import Logging

extension LifecycleHolder {
    /// The daemon's lifecycle, each change told where it is seen: status (the phase, and why it
    /// is degraded), the log (a warning when degraded, a line per other phase) and systemd's
    /// `STATUS=`.
    public convenience init<App>(reportingTo status: StatusHub<App>, logger: Logger, notifier: SystemdNotifier) {
        self.init { phase, context in
            status.publishPhase(phase, degradedReason: phase == .degraded ? context.degradedReason : nil)
            switch phase {
            case .degraded: logger.warning("degraded: \(context.degradedReason ?? "")")
            case .running, .selfTest, .draining, .stopped: logger.info("\(phase.name)")
            case .starting: break
            }
            notifier.status("\(phase.name)\(context.degradedReason.map { phase == .degraded ? ": \($0)" : "" } ?? "")")
        }
    }
}
