import ControllerFSM
import ControllerHost

/// The relations between the barrier's timings that must hold for it to work, each the
/// smallest value one timing may have given the rest of the board (as the turnstile's): below
/// it the machine accepts the board and then faults on every travel of the arm.
///
/// | timing                 | must be                                                     | checked for |
/// |------------------------|-------------------------------------------------------------|-------------|
/// | barrier.motor_timeout  | ≥ ``minimumMotorTimeout`` + the slower limit switch's debounce | every board |
/// | barrier.close_delay    | ≥ ``minimumCloseDelay``                                     | every board |
/// | barrier.hold_open      | ≥ ``minimumHoldOpen``                                       | every board |
/// | barrier.limit_settle   | ≥ the slower limit switch's debounce + ``limitCoast``       | every board |
/// | barrier.limit_settle   | > sim.bounce_window + that debounce + ``limitCoast``        | simulated   |
/// | barrier.motor_timeout  | > sim.travel_time + sim.bounce_window + that debounce       | simulated   |
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

    /// The longer debounce of the two limit switches: an arrival is seen that much later.
    public static func limitDebounce(_ board: Board<ParkingBarrier>) -> Duration {
        max(board.inputs["up_limit"]?.debounce ?? .zero, board.inputs["down_limit"]?.debounce ?? .zero)
    }

    /// The relations every board is held to.
    public static let board: [Relation] = [
        Relation(
            key: "barrier.motor_timeout",
            relation: "motor_timeout ≥ \(minimumMotorTimeout.secondsText) s + the limit switches' debounce",
            why: "an arm takes about a second to travel and its arrival is seen a debounce period later; "
                + "sooner, every travel would be a fault",
            value: { $0.settings.motorTimeout }, smallest: { minimumMotorTimeout + limitDebounce($0) }),
        Relation(
            key: "barrier.close_delay", relation: "close_delay ≥ \(minimumCloseDelay.secondsText) s",
            why: "a vehicle clears the loop a moment before it clears the arm's swing",
            value: { $0.settings.closeDelay }, smallest: { _ in minimumCloseDelay }),
        Relation(
            key: "barrier.hold_open", relation: "hold_open ≥ \(minimumHoldOpen.secondsText) s",
            why: "a driver needs at least a second to see green and start onto the loop; sooner, the arm comes down in front of the car",
            value: { $0.settings.holdOpen }, smallest: { _ in minimumHoldOpen }),
        Relation(
            key: "barrier.limit_settle",
            relation: "limit_settle ≥ the limit switches' debounce + \(limitCoast.secondsText) s",
            why: "a limit switch reports the arm leaving a debounce period after it left, and the arm coasts after its motor stops; "
                + "sooner, a stale level would be believed",
            value: { $0.settings.limitSettle }, smallest: { limitDebounce($0) + limitCoast }),
    ]

    /// The relations a simulated board is held to besides: the simulated arm must reach its
    /// end, and be seen there, before the motor timeout.
    public static let simulated: [Relation] = [
        Relation(
            key: "barrier.motor_timeout",
            relation: "motor_timeout > sim.travel_time + sim.bounce_window + the limit switches' debounce",
            why: "the simulated arm would not be seen at its end in time, and every travel would be a fault",
            value: { $0.settings.motorTimeout },
            smallest: { board in
                board.sim.plant.travelTime + (board.sim.bounceEdges > 0 ? board.sim.bounceWindow : .zero)
                    + limitDebounce(board) + .nanoseconds(1)
            }),
        Relation(
            key: "barrier.limit_settle",
            relation: "limit_settle > sim.bounce_window + the limit switches' debounce + \(limitCoast.secondsText) s",
            why: "a simulated limit switch bounces before it is debounced; sooner, a stale level would be believed",
            value: { $0.settings.limitSettle },
            smallest: { board in
                (board.sim.bounceEdges > 0 ? board.sim.bounceWindow : .zero) + limitDebounce(board) + limitCoast + .nanoseconds(1)
            }),
    ]
}
