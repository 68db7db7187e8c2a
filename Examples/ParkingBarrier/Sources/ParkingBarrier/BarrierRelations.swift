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
/// | barrier.motor_timeout  | > sim.travel_time + sim.bounce_window + that debounce       | simulated   |
public enum BarrierRelations {
    public typealias Relation = TimingRelation<ParkingBarrier>

    /// The quickest barrier arm travels its quarter turn in about a second: a motor timeout
    /// shorter than that faults every opening.
    public static let minimumMotorTimeout = Duration.seconds(1)
    /// A vehicle's tail clears the loop a moment before it clears the arm's swing; closing
    /// sooner than a quarter of a second after it lowers the arm onto it.
    public static let minimumCloseDelay = Duration.milliseconds(250)

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
    ]
}
