import Turnstile

/// Everything a turnstile implementation computes, compared at the end of a stream: two
/// implementations that agree on it did the same work.
public struct TurnstileSnapshot: Equatable, Sendable, CustomStringConvertible {
    public var state: TurnstileState
    public var credit: Int
    public var stateBeforeEmergency: TurnstileState
    /// Including `ignored`.
    public var counters: TurnstileCounters
    public var outputs: TurnstileOutputs
    /// Whether the state timer (relock or repair) is running.
    public var timerArmed: Bool

    public var description: String {
        let counts = counters.all.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "state=\(state) credit=\(credit) before=\(stateBeforeEmergency) timer=\(timerArmed) \(counts) outputs=\(outputs)"
    }
}
