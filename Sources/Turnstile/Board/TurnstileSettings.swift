import ControllerHost

/// Where the lock relay is left when the daemon stops.
package enum FailMode: String, CaseIterable, Hashable, Sendable {
    /// Driven locked: nobody passes unpaid while the controller is down.
    case secure
    /// Driven released: nobody is trapped (the choice where a fire code demands it).
    case safe
}

/// The `[turnstile]` section: the machine's timings and how it fails.
public struct TurnstileSettings: Hashable, Sendable {
    /// How long `unlocked` waits for a push before the credit expires.
    package var relockTimeout: Duration
    /// How long `outOfOrder` lasts before the turnstile returns to service.
    package var repairPeriod: Duration
    /// How long the push sensor may stay active before it counts as a jam (`fault`).
    package var jamTimeout: Duration
    /// How long the alarm sounds for a forced push.
    package var alarmPulse: Duration
    /// Where the lock is driven when the daemon stops.
    package var failMode: FailMode

    /// The defaults: what a board without a `[turnstile]` section gets.
    package static let defaults = TurnstileSettings(
        relockTimeout: .seconds(5), repairPeriod: .seconds(5), jamTimeout: .seconds(30), alarmPulse: .milliseconds(500), failMode: .secure)
}

extension TurnstileSettings {
    /// The `[turnstile]` timings by their board-file key: what a reload may change, and what a
    /// recording's `set` lines carry.
    public enum Timing: String, CaseIterable, Hashable, Sendable {
        case relockTimeout = "relock_timeout"
        case repairPeriod = "repair_period"
        case jamTimeout = "jam_timeout"
        case alarmPulse = "alarm_pulse"
    }

    package subscript(timing: Timing) -> Duration {
        get {
            switch timing {
            case .relockTimeout: relockTimeout
            case .repairPeriod: repairPeriod
            case .jamTimeout: jamTimeout
            case .alarmPulse: alarmPulse
            }
        }
        set {
            switch timing {
            case .relockTimeout: relockTimeout = newValue
            case .repairPeriod: repairPeriod = newValue
            case .jamTimeout: jamTimeout = newValue
            case .alarmPulse: alarmPulse = newValue
            }
        }
    }
}
