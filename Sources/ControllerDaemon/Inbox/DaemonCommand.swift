import ControllerHost
import Turnstile

/// What other threads ask of the event loop, which alone touches the controller. A stop is not
/// among them: it is the inbox's own request (``CommandInbox``'s `requestStop()`), never refused.
public enum DaemonCommand: Hashable, Sendable {
    /// A direct event: `fault`, `repair`, `emergencyOn`, `emergencyOff` (from `ctl`).
    case event(TurnstileEvent)
    /// A pulse on a simulated input line, as its device would make it (simulated boards only).
    case pulse(InputRole)
    /// New timings and fail mode, from a reloaded board file.
    case retime(BoardFile.TurnstileSettings)
}
