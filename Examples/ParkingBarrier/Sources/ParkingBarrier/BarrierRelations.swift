import ControllerFSM
import ControllerHost

/// The relations between the barrier's timings that must hold for it to work, each the
/// smallest value one timing may have given the rest of the board (as the turnstile's): below
/// it the machine accepts the board and then faults on every travel of the arm.
public enum BarrierRelations {
    public typealias Relation = TimingRelation<ParkingBarrier>

    /// The quickest barrier arm travels its quarter turn in about a second: a motor timeout
    /// shorter than that faults every opening.
    public static let minimumMotorTimeout = Duration.seconds(1)
    /// A vehicle's tail clears the loop a moment before it clears the arm's swing; closing
    /// sooner than a quarter of a second after it lowers the arm onto it.
    public static let minimumCloseDelay = Duration.milliseconds(250)
    /// A driver needs at least a second to see green and start onto the loop; an opening
    /// shorter than that (`"20ms"` for `"20s"`) brings the arm down in front of the car it was
    /// raised for.
    public static let minimumHoldOpen = Duration.seconds(1)
    /// An arm whose motor stops goes on moving for a moment; its limit switch may report leaving
    /// that long after the motor stopped, besides the debounce.
    public static let limitCoast = Duration.milliseconds(50)

    /// An arrival is seen a debounce period after it happened.
    static let limitDebounce = TimingTerm<ParkingBarrier>.debounce(of: "up_limit", "down_limit")

    /// The relations every board is held to.
    public static let board: [Relation] = [
        .atLeast("barrier.motor_timeout", \.settings.motorTimeout, .constant(minimumMotorTimeout), limitDebounce,
                 why: "an arm takes about a second to travel and its arrival is seen a debounce period later; sooner, every travel would be a fault"),
        .atLeast("barrier.close_delay", \.settings.closeDelay, .constant(minimumCloseDelay),
                 why: "a vehicle clears the loop a moment before it clears the arm's swing"),
        .atLeast("barrier.hold_open", \.settings.holdOpen, .constant(minimumHoldOpen),
                 why: "a driver needs at least a second to see green and start onto the loop; sooner, the arm comes down in front of the car"),
        .atLeast("barrier.limit_settle", \.settings.limitSettle, limitDebounce, .constant(limitCoast),
                 why: "a limit switch reports the arm leaving a debounce period after it left, and the arm coasts after its motor stops; "
                     + "sooner, a stale level would be believed"),
    ]

    /// The relations a simulated board is held to besides: the simulated arm must reach its
    /// end, and be seen there, before the motor timeout.
    public static let simulated: [Relation] = [
        .above("barrier.motor_timeout", \.settings.motorTimeout, TimingTerm("sim.travel_time") { $0.sim.plant.travelTime }, .bounceWindow,
               limitDebounce, why: "the simulated arm would not be seen at its end in time, and every travel would be a fault"),
        .above("barrier.limit_settle", \.settings.limitSettle, .bounceWindow, limitDebounce, .constant(limitCoast),
               why: "a simulated limit switch bounces before it is debounced; sooner, a stale level would be believed"),
    ]
}
