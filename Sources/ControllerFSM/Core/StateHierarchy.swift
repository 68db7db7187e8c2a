/// A remembered history pseudo-state as written: `definition.history(_:of:deep:default:)`.
struct HistorySpec<State: MachineSymbol, Event: MachineSymbol, Context> {
    var state: State
    var parent: State
    var deep: Bool
    /// One state, or one in each of some parallel regions.
    var defaultTargets: [State]
    /// Run when the default is taken (nothing remembered yet), before the default is entered.
    var action: MachineAction<State, Event, Context>?
    var location: SourceLocation
    var defaultTarget: State { defaultTargets[0] }
}

/// Whether `state` is `ancestor` or inside it (-1, the top, holds every state), following
/// `parent` (-1 above the top). The one walk up the nesting: the hierarchy's, as `compile()`
/// checks it, and the table's, as a machine asks it, are both this.
@inlinable @inline(__always)
func isState(_ state: Int, inside ancestor: Int, parent: (Int) -> Int) -> Bool {
    if ancestor < 0 { return true }
    var walker = state
    while walker >= 0 {
        if walker == ancestor { return true }
        walker = parent(walker)
    }
    return false
}

/// SCXML's transition domain (Appendix D, `getTransitionDomain`): the state whose descendants a
/// transition from `source` exits and enters (-1: the top). `source` itself for a local
/// transition from a compound state (one whose children are active one at a time) to states
/// strictly inside it; else the nearest compound state strictly above `source` that holds every
/// target strictly inside it. A parallel state is never the domain: a move between its regions
/// leaves and re-enters it. `holdsEveryTarget(s)` says whether every target is strictly inside
/// `s`; for a row to a history the targets are what the history stands for when the row is
/// taken (what it remembers, else its default's targets), so the one rule serves `compile()`,
/// for every row to a state, and a machine, for a row to a history, at run time.
@inlinable @inline(__always)
func transitionDomain(
    source: Int, isLocal: Bool, parent: (Int) -> Int, isCompound: (Int) -> Bool, holdsEveryTarget: (Int) -> Bool
) -> Int {
    if isLocal && isCompound(source) && holdsEveryTarget(source) { return source }
    var walker = parent(source)
    while walker >= 0 && !(isCompound(walker) && holdsEveryTarget(walker)) { walker = parent(walker) }
    return walker
}

/// The nesting of a definition's states, by state index, as `compile()` checks it and the table
/// is built from it. Off the dispatch path.
struct StateHierarchy {
    /// The superstate of each state; -1 at the top.
    var parent: [Int]
    /// 0 at the top.
    var depth: [Int]
    /// Whether each state has children (a history pseudo-state counts only as its parent's
    /// memory, not as a child that can be active).
    var isCompound: [Bool]
    /// For a history pseudo-state, its slot in the machine's history memory; -1 otherwise.
    var historySlot: [Int]
    /// Whether each state holds parallel regions (all its children active at once).
    var isParallel: [Bool]
    /// Each state's children, histories left out, in the order of the state enum: so that a
    /// check of a superstate's children looks at them, not at every state.
    var children: [[Int]]

    init(stateCount: Int, parents: [Int], histories: [Int], parallel: [Bool]) {
        parent = parents
        isParallel = parallel
        depth = [Int](repeating: 0, count: stateCount)
        isCompound = [Bool](repeating: false, count: stateCount)
        historySlot = [Int](repeating: -1, count: stateCount)
        for (slot, state) in histories.enumerated() { historySlot[state] = slot }
        children = [[Int]](repeating: [], count: stateCount)
        for state in 0..<stateCount {
            if parents[state] >= 0 && historySlot[state] < 0 {
                isCompound[parents[state]] = true
                if parents[state] < stateCount { children[parents[state]].append(state) }
            }
        }
    }

    /// Fills `depth`; returns the states whose parent chain loops back on itself.
    mutating func computeDepths() -> [Int] {
        var cyclic: [Int] = []
        for state in 0..<parent.count {
            var steps = 0
            var walker = parent[state]
            while walker >= 0 && steps <= parent.count {
                steps += 1
                walker = parent[walker]
            }
            if steps > parent.count { cyclic.append(state) } else { depth[state] = steps }
        }
        return cyclic
    }

    /// Whether `state` is `ancestor` or inside it.
    func isInside(_ state: Int, _ ancestor: Int) -> Bool {
        isState(state, inside: ancestor) { parent[$0] }
    }

    /// Whether `state` is strictly inside `ancestor`.
    func isProperlyInside(_ state: Int, _ ancestor: Int) -> Bool {
        state != ancestor && isInside(state, ancestor)
    }

    /// Whether `state` has children that are active one at a time (SCXML's compound state).
    func isCompoundNotParallel(_ state: Int) -> Bool { isCompound[state] && !isParallel[state] }

    /// The transition domain of a row written in `source` to `targets` (see `transitionDomain`):
    /// with no parallel state, the nearest superstate strictly above `source` holding the
    /// target strictly inside it, so a self-transition, or one to a superstate around the
    /// source, leaves and re-enters the target.
    func domain(source: Int, targets: [Int], kind: TransitionKind) -> Int {
        transitionDomain(
            source: source, isLocal: kind == .local, parent: { parent[$0] }, isCompound: { isCompoundNotParallel($0) },
            holdsEveryTarget: { ancestor in targets.allSatisfy { isProperlyInside($0, ancestor) } })
    }

    /// Whether two states can be active together: one is inside the other, or their nearest
    /// common superstate holds parallel regions.
    func areOrthogonalOrNested(_ first: Int, _ second: Int) -> Bool {
        if isInside(first, second) || isInside(second, first) { return true }
        var walker = parent[first]
        while walker >= 0 && !isInside(second, walker) { walker = parent[walker] }
        return walker >= 0 && isParallel[walker]
    }

    /// The states from just below `top` down to `state`, outermost first.
    func path(from top: Int, down state: Int) -> [Int] {
        var path: [Int] = []
        var walker = state
        while walker >= 0 && walker != top {
            path.append(walker)
            walker = parent[walker]
        }
        return path.reversed()
    }
}
