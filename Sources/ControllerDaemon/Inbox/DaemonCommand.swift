import ControllerHost

/// What other threads ask of the event loop, which alone touches the controller. A stop is not
/// among them: it is the inbox's own request (``DaemonInbox``'s `requestStop()`), never refused.
///
/// It travels through the inbox's ring on the loop's path: lines are named by their index in
/// the application's `ControllerApplication/inputs`, so a command is plain values to move.
public enum DaemonCommand<App: ControllerApplication>: Hashable, Sendable {
    /// A direct command (`ctl repair`, `ctl emergency on`): one of the application's
    /// `ControllerApplication/commands`.
    case event(App.Event)
    /// A pulse on the simulated line of input `input` (an index in `App.inputs`), as its device
    /// would make it (simulated boards only).
    case pulse(input: Int)
    /// The simulated line of level input `input` made active or inactive (simulated boards
    /// only).
    case level(input: Int, on: Bool)
    /// One of the simulated plant's actions (simulated boards only).
    case plant(App.Plant.Action)
    /// New settings, from a reloaded board file.
    case retime(App.Settings)

    /// Far more than a person or a script at a control socket sends between two turns of the
    /// loop; a flood beyond it is refused, not buffered.
    public static var inboxCapacity: Int { 64 }
}
