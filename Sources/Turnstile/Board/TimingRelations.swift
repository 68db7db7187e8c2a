import ControllerFSM
import ControllerHost

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
/// The first four are here (``board``, the turnstile's `SettingsDeclaration.relations`); the simulated ones are the generic simulation's (ControllerSimulation's
/// `checkTimings`, `check(_:against:)`), beside the model of the inputs they protect.
/// The turnstile's relations and the bounds behind them.
package enum TurnstileRelations {
    package typealias Relation = TimingRelation<TurnstileApplication>

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
    package static let board: [Relation] = [
        .atLeast("turnstile.relock_timeout", \.settings.relockTimeout, .debounce(of: "push"), .constant(minimumReaction),
                 why: "a person needs a moment to push after the arm is released, and the push is seen a debounce period later; "
                     + "sooner, every coin would expire unused"),
        .atLeast("turnstile.jam_timeout", \.settings.jamTimeout, .debounce(of: "push"), .constant(minimumPassage),
                 why: "a passage holds the push sensor for up to about a second; sooner, ordinary passages would be faults"),
        .atLeast("turnstile.repair_period", \.settings.repairPeriod, .constant(minimumRepairPeriod),
                 why: "a repair is a person's work at the turnstile"),
        .atLeast("turnstile.alarm_pulse", \.settings.alarmPulse, .constant(minimumAlarmPulse),
                 why: "a shorter sound is a click, not an alarm"),
    ]

    /// The relations a simulated board is held to besides (`simulate`, `check`, a simulated
    /// `run`): the simulated push must end before it is a jam.
    package static let simulated: [Relation] = [
        .above("turnstile.jam_timeout", \.settings.jamTimeout, .simulatedPulse("push"), .bounceWindow, .debounce(of: "push"),
               why: "a simulated push would last past it, and every passage would be a fault"),
    ]
}
