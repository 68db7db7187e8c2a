/// Every state a machine is in, as one value: the innermost state of each active region and the
/// superstates around them. What a declaration reads when the machine has parallel regions (or
/// superstates) and `state` alone would not say enough: `active.isActive(.flashLit)` holds while
/// the flasher's region is lit, whatever the first region does.
///
/// Taken with ``ObservedMachine/configuration``. It reads nothing allocated: taking one and
/// asking ``isActive(_:)`` costs a few loads (a reference held on the table, and one on the
/// machine's region marks when it has regions), so the host evaluates declarations with it after
/// every step. It describes the machine when it was taken; keep it no longer than the call it
/// was given to (a machine that steps while one is still held copies its region marks once).
///
/// ```swift
/// OutputDeclaration("lamp", initial: false, interlock: "lamps") { active, _ in active.isAnyActive([.lit, .bright]) },
/// ```
public struct ActiveConfiguration<State: MachineSymbol>: @unchecked Sendable {
    // Safety: the pointers are into the table's buffers, written once when it is built and
    // never after; `owner` keeps them alive. The region marks are a copy-on-write array.
    /// The first region's innermost state: the machine's ``ObservedMachine/state``.
    public let state: State
    /// Keeps the table's buffers alive while this value reads them.
    @usableFromInline let owner: AnyObject
    /// By state: its superstate's index, -1 at the top (the table's buffer).
    @usableFromInline let parent: UnsafeMutablePointer<Int32>
    /// By state, with parallel regions: whether it is active. Empty without regions, where the
    /// configuration is `state` and its superstates.
    @usableFromInline let active: ContiguousArray<Bool>

    @inlinable
    init(state: State, owner: AnyObject, parent: UnsafeMutablePointer<Int32>, active: ContiguousArray<Bool>) {
        self.state = state
        self.owner = owner
        self.parent = parent
        self.active = active
    }

    /// Whether the machine has parallel regions (more than one innermost state may be active).
    @inlinable public var hasRegions: Bool { !active.isEmpty }

    /// Whether `state` is active: an innermost state of any region, or a superstate around one.
    @inlinable
    public func isActive(_ state: State) -> Bool {
        if hasRegions { return active[state.index] }
        var walker = self.state.index
        while walker >= 0 {
            if walker == state.index { return true }
            walker = Int(parent[walker])
        }
        return false
    }

    /// Whether any of `states` is active (a set of states declared together, as a fault list).
    @inlinable
    public func isAnyActive(_ states: some Sequence<State>) -> Bool {
        for state in states where isActive(state) { return true }
        return false
    }
}
