/// A count of the times the machine entered, or left, one state: the turnstile counts each fire
/// alarm, `emergency` entered as `emergencyOn` and left as `emergencyOff`. The store books it as
/// a kind of its own, beside the counters, named once here; the machine keeps no counter for it.
///
/// It is read from the states of consecutive ledger entries, so a state entered and left again
/// within one step (an entry action that moves straight on), or between two entries a full
/// ledger ring lost, is not counted.
public struct StateCount<App: ControllerApplication>: Sendable {
    /// Which change of state is counted.
    public enum Change: Sendable {
        /// A step that ends in the state after starting outside it.
        case entered
        /// A step that starts in the state and ends outside it.
        case left
    }

    /// The kind the store books it under: its `/status` and `stats` name.
    public let kind: String
    public let state: App.State
    public let change: Change

    /// Counts the steps into `state` as `kind`.
    public static func entering(_ state: App.State, counts kind: String) -> Self {
        Self(kind: kind, state: state, change: .entered)
    }

    /// Counts the steps out of `state` as `kind`.
    public static func leaving(_ state: App.State, counts kind: String) -> Self {
        Self(kind: kind, state: state, change: .left)
    }

    /// Whether a step from `before` to `after` is one this counts.
    @inlinable package func counts(from before: App.State, to after: App.State) -> Bool {
        guard before != after else { return false }
        switch change {
        case .entered: return after == state
        case .left: return before == state
        }
    }
}
