import ControllerFSM
import ControllerHost
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// What every service of the daemon shares: the inbox that carries commands to the event loop,
/// status (in `App`'s words), the lifecycle machine, systemd, and the log with its rate-limited
/// warnings.
public struct DaemonParts<App: ControllerApplication>: Sendable {
    public let inbox: DaemonInbox<App>
    public let notifier: SystemdNotifier
    public let status: StatusHub<App>
    public let lifecycle: LifecycleHolder
    public let warnings: DaemonWarnings
    public let logger: Logger

    /// `program` is the daemon's name, as systemd knows its unit; `board` and `chip` are what
    /// status shows of where it runs. systemd is read from the process's environment.
    /// - Throws: when the inbox's wake-up cannot be made (out of descriptors).
    public init(program: String, board: String, chip: String, logger: Logger) throws(WakeUpError) {
        inbox = try DaemonInbox<App>()
        let changes = StatusChanges()
        notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment, changes: changes)
        status = StatusHub<App>(board: board, chip: chip, inbox: inbox, changes: changes)
        lifecycle = LifecycleHolder(reportingTo: status, logger: logger, notifier: notifier)
        warnings = DaemonWarnings(logger: logger, program: program)
        self.logger = logger
    }
}
