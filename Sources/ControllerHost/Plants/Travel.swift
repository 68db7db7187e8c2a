import ControllerFSM

/// A part moved between its rest and its end by two motors, the physics of a
/// ``TravelBetweenLimits`` plant (a barrier's arm, a gate, a garage door, a blind). It travels
/// from rest to end in the travel time while the motor towards the end alone is on, and back
/// while the other alone is on, from wherever it is; with both motors on or off, or stuck, it
/// stays. A limit switch is active exactly while the part is at its end of travel and not being
/// driven away from it: it opens as soon as the motor moves the part off it.
public struct Travel: Equatable, Sendable {
    /// Nanoseconds of motor time from rest to end; positions count in the same unit.
    public let travel: Int64
    /// 0 at rest, ``travel`` at the end.
    public private(set) var position: Int64
    /// The time the position was last brought up to.
    public private(set) var time: MachineInstant
    public private(set) var towardsEnd = false
    public private(set) var towardsRest = false
    /// The part does not move, whatever the motors do (`arm stuck` in a barrier's scenario).
    public private(set) var isStuck = false

    public init(travelTime: Duration, startsAtEnd: Bool = false, at start: MachineInstant = .zero) {
        precondition(travelTime > .zero, "the travel time must be positive, got \(travelTime)")
        travel = travelTime.nanosecondCount
        position = startsAtEnd ? travel : 0
        time = start
    }

    /// The end's limit switch is active.
    public var isAtEnd: Bool { position == travel && motion >= 0 }
    /// The rest's limit switch is active.
    public var isAtRest: Bool { position == 0 && motion <= 0 }

    /// When the part will reach its end or its rest if nothing changes; `nil` while it does not
    /// move towards one.
    public var nextArrival: MachineInstant? {
        switch motion {
        case 1 where position < travel: MachineInstant(nanoseconds: time.nanoseconds) + .nanoseconds(travel - position)
        case -1 where position > 0: MachineInstant(nanoseconds: time.nanoseconds) + .nanoseconds(position)
        default: nil
        }
    }

    /// Brings the part to where it is at `instant` (never backwards).
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

    /// The motors as the controller wrote them at `instant`.
    public mutating func drive(towardsEnd end: Bool, towardsRest rest: Bool, at instant: MachineInstant) {
        advance(to: instant)
        towardsEnd = end
        towardsRest = rest
    }

    /// The part jams (`true`) or is freed, at `instant`.
    public mutating func setStuck(_ stuck: Bool, at instant: MachineInstant) {
        advance(to: instant)
        isStuck = stuck
    }

    /// +1 towards the end, -1 towards the rest, 0 still.
    private var motion: Int64 {
        if isStuck || towardsEnd == towardsRest { return 0 }
        return towardsEnd ? 1 : -1
    }
}
