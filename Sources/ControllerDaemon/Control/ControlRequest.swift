import ControllerHost
import Turnstile

/// What `turnstiled ctl` asks the daemon, once its line is parsed and checked.
public enum ControlRequest: Sendable, Equatable {
    /// The daemon's snapshot.
    case status
    /// A command for the controller's inbox.
    case command(ControlCommand)
    /// The recent transitions; with `follow`, then every new one as it happens.
    case events(follow: Bool)
    /// A simulated pulse on an input line (the simulated board only; the daemon refuses it on
    /// real GPIO).
    case pulse(InputRole)

    /// The inputs `pulse` accepts: the pulsed ones. The fire alarm is a level, held for as long
    /// as the alarm lasts, so it is `emergency on|off` instead.
    public static let pulseRoles: [InputRole] = [.coin, .push, .service]
}

/// The controller commands a request can carry: the ones an operator gives by hand.
public enum ControlCommand: String, Sendable, Equatable, CaseIterable {
    case fault
    case repair
    case emergencyOn
    case emergencyOff

    /// The event the controller dispatches for it.
    public var event: TurnstileEvent {
        switch self {
        case .fault: .fault
        case .repair: .repair
        case .emergencyOn: .emergencyOn
        case .emergencyOff: .emergencyOff
        }
    }
}

/// A request with the client's optional `id`, which the reply echoes.
public struct ControlRequestLine: Sendable, Equatable {
    public var id: Int?
    public var request: ControlRequest

    public init(id: Int? = nil, request: ControlRequest) {
        self.id = id
        self.request = request
    }
}
