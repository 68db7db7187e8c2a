import ControllerFSM

/// One term of the bound a ``TimingRelation`` holds a timing to: a fixed duration, the debounce
/// of some inputs, a simulated pulse or bounce, or anything else the board decides, each with
/// the words a refusal names it by. A relation's bound is the sum of its terms.
///
/// The barrier's limit switches, a term of two of its relations:
///
/// ```swift
/// static let limitDebounce = TimingTerm<ParkingBarrier>.debounce(of: "up_limit", "down_limit")
/// ```
public struct TimingTerm<App: ControllerApplication>: Sendable {
    /// The term as a refusal writes it (`inputs.push.debounce`, `0.25 s`).
    public let text: String
    /// The term's value on a board.
    public let value: @Sendable (Board<App>) -> Duration

    public init(_ text: String, _ value: @escaping @Sendable (Board<App>) -> Duration) {
        (self.text, self.value) = (text, value)
    }

    /// A fixed duration, written in seconds.
    public static func constant(_ duration: Duration) -> Self {
        Self("\(duration.secondsText) s") { _ in duration }
    }

    /// The longest debounce of `inputs` on the board (zero for an input it does not wire): an
    /// edge of any of them is seen that much after it happened.
    public static func debounce(of inputs: RoleName...) -> Self {
        let names = inputs.map { "inputs.\($0).debounce" }
        let text = names.count == 1 ? names[0] : "the longest of \(names.listed("and"))"
        return Self(text) { board in inputs.map { board.inputs[$0]?.debounce ?? .zero }.max() ?? .zero }
    }

    /// `sim.<role>_pulse`: how long the simulator holds a pulse of `role` (zero when it has none).
    public static func simulatedPulse(_ role: RoleName) -> Self {
        Self("sim.\(role)_pulse") { $0.sim.pulse(role) ?? .zero }
    }

    /// `sim.bounce_window`: how long a simulated edge bounces, zero when `sim.bounce_edges` is 0.
    public static var bounceWindow: Self {
        Self("sim.bounce_window") { $0.sim.bounceEdges > 0 ? $0.sim.bounceWindow : .zero }
    }
}

extension TimingRelation {
    /// `key ≥ terms`: the timing `key` (`barrier.close_delay`), read by `value`, is refused below
    /// the sum of `terms`, because `why`.
    ///
    /// ```swift
    /// .atLeast("turnstile.repair_period", \.settings.repairPeriod, .constant(minimumRepairPeriod),
    ///          why: "a repair is a person's work at the turnstile"),
    /// ```
    public static func atLeast(_ key: String, _ value: @escaping @Sendable (Board<App>) -> Duration,
                               _ terms: TimingTerm<App>..., why: String) -> Self {
        bounded(key, "≥", value, terms, margin: .zero, why: why)
    }

    /// `key > terms`: refused at or below the sum of `terms` (the smallest accepted is one
    /// nanosecond over it), because `why`.
    public static func above(_ key: String, _ value: @escaping @Sendable (Board<App>) -> Duration,
                             _ terms: TimingTerm<App>..., why: String) -> Self {
        bounded(key, ">", value, terms, margin: .nanoseconds(1), why: why)
    }

    private static func bounded(_ key: String, _ comparison: String, _ value: @escaping @Sendable (Board<App>) -> Duration,
                                _ terms: [TimingTerm<App>], margin: Duration, why: String) -> Self {
        let name = key.split(separator: ".").last.map(String.init) ?? key
        return Self(key: key, relation: "\(name) \(comparison) \(terms.map(\.text).joined(separator: " + "))", why: why,
                    value: value, smallest: { board in terms.reduce(margin) { $0 + $1.value(board) } })
    }
}
