import ControllerFSM

/// The simulated arm: what the simulator puts behind the motor outputs and the limit switches.
/// It travels from rest to the top in `travelTime` while `motor_up` alone is on, and back while
/// `motor_down` alone is on, from wherever it is; with both motors on or off, or stuck, it stays.
/// A limit switch is active exactly while the arm is at its end: it opens as soon as the arm
/// moves off it.
public struct BarrierPlant: Equatable, Sendable {
    /// The `[sim] travel_time` of a barrier board when it gives none.
    public static let defaultTravelTime = Duration.seconds(3)

    /// Nanoseconds of motor time from rest to the top; positions count in the same unit.
    public let travel: Int64
    /// 0 at rest, `travel` at the top.
    public private(set) var position: Int64
    /// The time the position was last brought up to.
    public private(set) var time: MachineInstant
    public private(set) var motorUp = false
    public private(set) var motorDown = false
    /// The arm does not move, whatever the motors do (`arm stuck` in a scenario).
    public private(set) var isStuck = false

    public init(travelTime: Duration = defaultTravelTime, startsUp: Bool = false, at start: MachineInstant = .zero) {
        precondition(travelTime > .zero, "the arm's travel time must be positive, got \(travelTime)")
        travel = travelTime.nanosecondCount
        position = startsUp ? travel : 0
        time = start
    }

    public var upLimit: Bool { position == travel && motion >= 0 }
    public var downLimit: Bool { position == 0 && motion <= 0 }

    /// When the arm will reach an end if nothing changes; `nil` while it does not move towards one.
    public var nextArrival: MachineInstant? {
        switch motion {
        case 1 where position < travel: MachineInstant(nanoseconds: time.nanoseconds) + .nanoseconds(travel - position)
        case -1 where position > 0: MachineInstant(nanoseconds: time.nanoseconds) + .nanoseconds(position)
        default: nil
        }
    }

    /// Brings the arm to where it is at `instant` (never backwards).
    public mutating func advance(to instant: MachineInstant) {
        guard instant > time else { return }
        let elapsed = MachineInstant.saturatingDifference(instant.nanoseconds, time.nanoseconds)
        switch motion {
        case 1: position = elapsed >= travel - position ? travel : position + elapsed
        case -1: position = elapsed >= position ? 0 : position - elapsed
        default: break
        }
        time = instant
    }

    /// The motor outputs as the controller wrote them at `instant`.
    public mutating func drive(motorUp up: Bool, motorDown down: Bool, at instant: MachineInstant) {
        advance(to: instant)
        motorUp = up
        motorDown = down
    }

    /// The arm jams (`true`) or is freed, at `instant`.
    public mutating func setStuck(_ stuck: Bool, at instant: MachineInstant) {
        advance(to: instant)
        isStuck = stuck
    }

    /// +1 rising, -1 falling, 0 still.
    private var motion: Int64 {
        if isStuck || motorUp == motorDown { return 0 }
        return motorUp ? 1 : -1
    }
}
