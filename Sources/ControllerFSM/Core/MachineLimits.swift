/// The bounds of a machine, fixed so that dispatch needs no storage of its own and every loop
/// that runs it to completion ends.
///
/// A step — `start`, one `send` with every event its work raises, one timer expiry with its
/// own, or the eventless rows after any of them — either settles within these bounds or is
/// ended: the events still queued are discarded, the timers still due at that instant are
/// stopped, and the step is reported as an ``UnsettledStep`` naming what repeated
/// (``ObservedMachine/lastUnsettledStep``, counted in ``MachineStatistics/unsettledSteps``).
/// No bound is ever exceeded in silence.
public enum MachineLimits {
    /// How deep superstates may nest: a state at the top has depth 0, its children depth 1.
    /// Entering a remembered deep history walks up from the leaf at most this many times per
    /// level, so the bound keeps that walk short; eight levels are more than any controller here
    /// uses (the turnstile needs three).
    public static let maximumDepth = 8
    /// How many states a machine may have, histories included: the fixed size of
    /// ``StateBits``, in which the host keeps a configuration without allocating. Controllers
    /// here have a dozen; a chart with hundreds is better split.
    public static let maximumStates = 256
    /// How many eventless rows one event may take one after another (SCXML's microsteps) before
    /// the machine stops taking them and counts it (``MachineStatistics/microstepLimitHits``): a
    /// chain longer than this is a loop whose guards never all turn false. A definition whose
    /// unguarded eventless rows loop is refused outright by `compile()`.
    public static let maximumMicrosteps = 64
    /// How many events the work of one step may raise and have dispatched (`Effects.send`,
    /// done events of final states), one after another, before the step is ended. The queue's
    /// capacity bounds how many wait at once; this bounds how many are taken in all, so an
    /// entry that raises the event that re-enters its state, or two rows that raise each
    /// other's events, end instead of running for ever. A real chain of follow-on events is a
    /// handful long; a few hundred is a loop.
    public static let maximumInternalEvents = 256
    /// How many timer expiries may happen at one instant before the step is ended and every
    /// timer still due then is stopped: a timer whose handler restarts it (or another) with no
    /// delay would otherwise expire again and again without time moving. Time that moves
    /// always ends an advance, however many periods a long one spans; only expiries that keep
    /// time still are bounded. Eight timer slots, each expiring and restarting a few times at
    /// one deadline, stay far below it.
    public static let maximumTimerExpiriesPerInstant = 256
    /// How many of a step's last dispatches a machine keeps, to name the cycle of one that did
    /// not settle: a cycle longer than this is named by its last this-many steps.
    public static let unsettledCycleWindow = 12
}
