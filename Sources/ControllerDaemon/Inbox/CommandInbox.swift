import ControllerFSM

/// The event loop's commands come through the runtime's own inbox: what the control socket and
/// the signal service ask, taken by the loop between events, with a stop that is never refused.
public typealias CommandInbox = PollableInbox<DaemonCommand>

extension PollableInbox where Entry == DaemonCommand {
    /// Far more than a person or a script at a control socket sends between two turns of the
    /// loop; a flood beyond it is refused, not buffered.
    public static var commandCapacity: Int { 64 }

    /// An inbox of ``commandCapacity`` commands.
    public convenience init() throws(WakeUpError) {
        try self.init(capacity: Self.commandCapacity)
    }
}
