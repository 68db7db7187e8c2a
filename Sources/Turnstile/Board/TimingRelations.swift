/// The relations between timings that must hold for a turnstile to work: each says the
/// smallest value one timing may have, given the others. A timing below it is accepted by the
/// machine and then eats money — every coin expiring unused, every passage a fault — so `check`,
/// `run`, `simulate` and a SIGHUP reload refuse it, naming the relation and the smallest value
/// that works.
///
/// The whole table (every relation between board timings, simulated pulses, debounce, bounce
/// and scenario durations):
///
/// | timing                    | must be                                              | checked for        |
/// |---------------------------|------------------------------------------------------|--------------------|
/// | turnstile.relock_timeout  | ≥ inputs.push.debounce + ``minimumReaction``         | every board        |
/// | turnstile.jam_timeout     | ≥ inputs.push.debounce + ``minimumPassage``          | every board        |
/// | turnstile.repair_period   | ≥ ``minimumRepairPeriod``                            | every board        |
/// | turnstile.alarm_pulse     | ≥ ``minimumAlarmPulse``                              | every board        |
/// | turnstile.jam_timeout     | > sim.push_pulse + sim.bounce_window + push debounce | simulated (`[sim]`)|
/// | inputs.ROLE.debounce      | < sim.ROLE_pulse − sim.bounce_window                 | simulated          |
/// | inputs.ROLE.debounce      | > sim.bounce_window (when sim.bounce_edges > 0)      | simulated          |
/// | sim.bounce_window         | < every sim pulse, > 0 when bounce_edges > 0         | every board (parse)|
/// | scenario `push hold S`    | S > inputs.push.debounce + sim.bounce_window         | scenarios          |
/// | scenario pulses on a line | start after the previous one ends and is seen to end | scenarios          |
///
/// The first four are here (``board``); the simulated ones are TurnstileSimulation's
/// (`checkTimings`, `check(_:against:)`), beside the model of the inputs they protect.
package struct TimingRelation: Sendable {
    /// The key path of the timing refused, e.g. `turnstile.relock_timeout`.
    package var key: String
    /// The relation as a person reads it.
    package var relation: String
    /// What goes wrong when it does not hold.
    package var why: String
    /// The timing's value on `board`.
    package var value: @Sendable (BoardFile) -> Duration
    /// The smallest value that works on `board`.
    package var smallest: @Sendable (BoardFile) -> Duration

    package init(key: String, relation: String, why: String, value: @escaping @Sendable (BoardFile) -> Duration,
                 smallest: @escaping @Sendable (BoardFile) -> Duration) {
        (self.key, self.relation, self.why, self.value, self.smallest) = (key, relation, why, value, smallest)
    }

    /// A person's quickest reaction to the arm's release (the lock's click): about a quarter of
    /// a second. A credit that expires sooner after the push line could first see a push
    /// expires under the hand of whoever paid for it.
    package static let minimumReaction = Duration.milliseconds(250)
    /// A person walking through holds the passage sensor active for up to about a second; a
    /// jam timeout shorter than that makes ordinary passages faults.
    package static let minimumPassage = Duration.seconds(1)
    /// A repair is a person's work at the turnstile; a period under a second is a unit slip
    /// (ms for s), and would end the repair before anyone could begin it.
    package static let minimumRepairPeriod = Duration.seconds(1)
    /// A sounder needs about a tenth of a second to be heard as an alarm, not a click.
    package static let minimumAlarmPulse = Duration.milliseconds(100)

    /// The relations every board is held to, real or simulated.
    package static let board: [TimingRelation] = [
        TimingRelation(
            key: "turnstile.relock_timeout", relation: "relock_timeout ≥ inputs.push.debounce + \(minimumReaction.secondsText) s",
            why: "a person needs a moment to push after the arm is released, and the push is seen a debounce period later; "
                + "sooner, every coin would expire unused",
            value: \.turnstile.relockTimeout, smallest: { pushDebounce($0) + minimumReaction }),
        TimingRelation(
            key: "turnstile.jam_timeout", relation: "jam_timeout ≥ inputs.push.debounce + \(minimumPassage.secondsText) s",
            why: "a passage holds the push sensor for up to about a second; sooner, ordinary passages would be faults",
            value: \.turnstile.jamTimeout, smallest: { pushDebounce($0) + minimumPassage }),
        TimingRelation(
            key: "turnstile.repair_period", relation: "repair_period ≥ \(minimumRepairPeriod.secondsText) s",
            why: "a repair is a person's work at the turnstile",
            value: \.turnstile.repairPeriod, smallest: { _ in minimumRepairPeriod }),
        TimingRelation(
            key: "turnstile.alarm_pulse", relation: "alarm_pulse ≥ \(minimumAlarmPulse.secondsText) s",
            why: "a shorter sound is a click, not an alarm",
            value: \.turnstile.alarmPulse, smallest: { _ in minimumAlarmPulse }),
    ]

    /// The push line's debounce; every loaded board wires push.
    package static func pushDebounce(_ board: BoardFile) -> Duration { board.inputs[.push]?.debounce ?? .zero }

    /// Refuses `board` when the relation does not hold.
    package func check(_ board: BoardFile, file: String) throws(BoardFileError) {
        let value = value(board)
        let smallest = smallest(board)
        guard value < smallest else { return }
        throw BoardFileError(
            file: file, location: .keyPath(key),
            reason: "\(value.secondsText) s is too short: \(relation), since \(why)",
            hint: "the smallest that works on this board is \(Self.roundedUp(smallest).secondsText) s")
    }

    /// Up to the next whole microsecond, as ``Swift/Duration/secondsText`` writes it: the value
    /// a message names must itself work.
    package static func roundedUp(_ duration: Duration) -> Duration {
        let nanoseconds = duration.nanosecondCount
        let micros = nanoseconds / 1_000 + (nanoseconds % 1_000 == 0 ? 0 : 1)
        return .microseconds(micros)
    }
}
