/// A count of the times the machine entered, or left, one state: the turnstile counts each fire
/// alarm, `emergency` entered as `emergencyOn` and left as `emergencyOff`. The store books it as
/// a kind of its own, beside the counters, named once here; the machine keeps no counter for it.
///
/// The state may be a superstate, or a state of any parallel region: it is entered when a step
/// makes it active and left when a step makes it inactive (a superstate is active while a state
/// inside it is). It is read from whether the state was active after consecutive ledger entries,
/// so a state entered and left again within one step (an entry action that moves straight on),
/// or between two entries a full ledger ring lost, is not counted.
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

    /// The most state counts an application may declare: a ledger entry carries whether each
    /// one's state is active as one bit of a `UInt64`.
    public static var maximumCount: Int { 64 }

    /// Whether a step after which the state went from `wasActive` to `isActive` is one this
    /// counts.
    @inlinable package func counts(wasActive: Bool, isActive: Bool) -> Bool {
        switch change {
        case .entered: !wasActive && isActive
        case .left: wasActive && !isActive
        }
    }
}

extension ControllerApplication {
    /// Bit `i` set when the state of ``stateCounts``[i] is active, as `isActive` says: what a
    /// ledger entry carries, and what the host and the store count changes of.
    @inlinable
    package static func stateCountBits(_ isActive: (State) -> Bool) -> UInt64 {
        let counts = stateCounts
        var bits: UInt64 = 0
        for index in 0..<counts.count where isActive(counts[index].state) {
            bits |= 1 << UInt64(index)
        }
        return bits
    }

    /// ``stateCountBits(_:)`` of the configuration the machine starts in unless an initial's
    /// guard says otherwise (every region's default): what the controller and the store count
    /// a session's first step from. Both start from it, so it is where the bound on
    /// ``stateCounts`` (``StateCount/maximumCount``) is checked.
    package static var startStateCountBits: UInt64 {
        precondition(
            stateCounts.count <= StateCount<Self>.maximumCount,
            "\(name) declares \(stateCounts.count) state counts; at most \(StateCount<Self>.maximumCount) (StateCount.maximumCount)")
        return stateCountBits(table.startConfiguration.isActive)
    }

    /// Calls `body` with each of ``stateCounts`` (by index) that a step counted, from the bits
    /// before it to the bits after it.
    @inlinable
    package static func forEachStateCount(from before: UInt64, to after: UInt64, _ body: (Int) -> Void) {
        guard before != after else { return }
        let counts = stateCounts
        for index in 0..<counts.count {
            let bit: UInt64 = 1 << UInt64(index)
            if counts[index].counts(wasActive: before & bit != 0, isActive: after & bit != 0) { body(index) }
        }
    }
}
