import ControllerFSM
import ControllerHost

/// The event loop's commands come through the runtime's own inbox: what the control socket and
/// the signal service ask, taken by the loop between events, with a stop that is never refused.
public typealias DaemonInbox<App: ControllerApplication> = PollableInbox<DaemonCommand<App>>

extension PollableInbox {
    /// An inbox of ``DaemonCommand/inboxCapacity`` commands.
    public convenience init<App>() throws(WakeUpError) where Entry == DaemonCommand<App> {
        try self.init(capacity: DaemonCommand<App>.inboxCapacity)
    }
}

/// What status reads of a daemon's inbox, whatever its application's commands.
public protocol InboxGauges: AnyObject, Sendable {
    /// Commands waiting for the loop.
    var depth: Int { get }
    /// Commands refused because the inbox was full.
    var refusedCount: Int { get }
}

extension PollableInbox: InboxGauges {}

/// The inbox as status sees it: its depth and refusals, not its application.
public typealias CommandInbox = any InboxGauges
