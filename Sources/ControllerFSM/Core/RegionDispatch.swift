/// The storage of a machine with parallel regions, reserved when the machine is built: dispatch
/// works in it and allocates nothing. Empty for a machine without parallel regions.
@usableFromInline
struct RegionWorkspace {
    /// By state: whether it is in the configuration (an active state's superstates are too).
    @usableFromInline var active: ContiguousArray<Bool>
    /// By state: marks of the step being taken, cleared as they are used.
    @usableFromInline var exiting: ContiguousArray<Bool>
    @usableFromInline var entering: ContiguousArray<Bool>
    /// By state: `initialToChoose` when it is entered as a target, so that its initial state is
    /// chosen (and its action run) after its entry work; -1 otherwise.
    @usableFromInline var chosenInitial: ContiguousArray<Int32>
    @usableFromInline static var initialToChoose: Int32 { -2 }
    /// By state: the history slot whose default's action runs after its entry work; -1 for none.
    @usableFromInline var historyAction: ContiguousArray<Int32>
    /// The candidate rows (indices into the table's `rows`) selected for this step: at most one
    /// per active innermost state, so at most one per state.
    @usableFromInline var selected: ContiguousArray<Int32>
    @usableFromInline var selectedCount = 0
    @usableFromInline let stateCount: Int

    init(stateCount: Int, hasRegions: Bool) {
        let size = hasRegions ? stateCount : 0
        self.stateCount = size
        active = ContiguousArray(repeating: false, count: size)
        exiting = ContiguousArray(repeating: false, count: size)
        entering = ContiguousArray(repeating: false, count: size)
        chosenInitial = ContiguousArray(repeating: -1, count: size)
        historyAction = ContiguousArray(repeating: -1, count: size)
        selected = ContiguousArray(repeating: -1, count: size)
    }
}

// The configuration path: SCXML's algorithm over the set of active states, for a machine with
// parallel regions. An event is offered to every active innermost state in document order; in
// each, the first row whose guard holds (its own, then its superstates') is selected, a row
// selected from two regions once; of two selected rows that would exit a common state, the
// first is kept unless the second's source is inside the first's. Then every exit (innermost
// and last in document order first, histories recorded before any exit work), every action in
// selection order, every entry in document order, each superstate's initial action right after
// its entry. Out of line, so a machine without regions carries none of it.
extension ObservedMachine {
    @inlinable @inline(never)
    mutating func dispatchInRegions(_ event: Event) -> DispatchOutcome {
        var from = effects.currentState
        if observer.isObserving { observer.willDispatch(event, in: from) }
        var outcome = DispatchOutcome.ignored
        selectRegionRows(column: event.index)
        // What the record names: the first row taken that moves (else the first row), from the
        // innermost state it was selected for (in its own region, not the first region's), to
        // the state it led to in the domain it moved in (worked out before the move: a
        // history's changes with it).
        var recorded = regions.selectedCount > 0 ? Int(regions.selected[0]) : -1
        var recordedDomain = -1
        if observer.isObserving && recorded >= 0 {
            for index in 0..<regions.selectedCount where table.regions.rows[Int(regions.selected[index])].targetCount > 0 {
                recorded = Int(regions.selected[index])
                break
            }
            from = State(rawValue: selectedFor(row: recorded)) ?? from
            recordedDomain = domain(ofRegionRow: recorded)
        }
        if regions.selectedCount > 0 {
            outcome = takeSelectedRows()
            if outcome == .transitioned { counts.transitions &+= 1 } else { counts.internalTransitions &+= 1 }
            settleRegions()
        } else {
            counts.ignored &+= 1
        }
        if observer.isObserving {
            // The recorded row names where it was written (`rowOf`), as without regions.
            let to = outcome == .transitioned ? firstActiveInnermost(inside: recordedDomain) : from
            observer.didDispatch(DispatchRecord(
                time: MachineInstant(nanoseconds: effects.currentTime), from: from, event: event, to: to,
                outcome: outcome, candidate: Int32(recorded)))
        }
        return outcome
    }

    /// The innermost state candidate row `row` was selected for: the state of the (state,
    /// column) block of `rowStart` that holds it. A search, for the records only.
    @inlinable
    func selectedFor(row: Int) -> Int {
        var low = 0, high = table.work.count &* view.columns
        // The last key whose rows start at or before `row` (the keys' starts never decrease).
        while high - low > 1 {
            let middle = (low &+ high) / 2
            if Int(view.rowStart[middle]) <= row { low = middle } else { high = middle }
        }
        return low / view.columns
    }

    /// The first active innermost state, in document order, inside `domain` (-1: anywhere):
    /// where a row whose domain that is led, in a record.
    @inlinable
    func firstActiveInnermost(inside domain: Int) -> State {
        for position in 0..<table.regions.documentOrder.count {
            let state = Int(table.regions.documentOrder[position])
            if regions.active[state] && !hasChildren(state) && state != domain && table.isInside(state, domain) {
                return State(rawValue: state) ?? effects.currentState
            }
        }
        return effects.currentState
    }

    /// Enters the initial state as a move from outside every state, then settles.
    @inlinable @inline(never)
    mutating func startRegions() {
        let initial = table.initial.index
        markForEntry(initial)
        markAncestorsForEntry(of: initial, below: -1)
        enterMarked()
        settleRegions()
        drainQueue()
    }

    /// Takes eventless rows, all regions at once, until none applies (at most
    /// ``MachineLimits/maximumMicrosteps`` steps).
    @inlinable @inline(never)
    mutating func settleRegions() {
        guard view.hasEventless else { return }
        var steps = 0
        while true {
            selectRegionRows(column: view.columns &- 1)
            if regions.selectedCount == 0 { return }
            if steps == MachineLimits.maximumMicrosteps {
                counts.microstepLimitHits &+= 1
                endUnsettledStep(.eventlessMicrosteps)
                return
            }
            steps &+= 1
            let from = effects.currentState
            _ = takeSelectedRows()
            counts.eventlessSteps &+= 1
            unsettled.note(from: from.index, event: -1, to: effects.currentState.index)
        }
    }

    @inlinable
    func hasChildren(_ state: Int) -> Bool { table.childStart[state] != table.childStart[state &+ 1] }

    /// Fills `regions.selected` with the rows `column` selects, conflicts removed.
    @inlinable
    mutating func selectRegionRows(column: Int) {
        regions.selectedCount = 0
        for position in 0..<table.regions.documentOrder.count {
            let state = Int(table.regions.documentOrder[position])
            if !regions.active[state] || hasChildren(state) { continue }
            let key = state &* view.columns &+ column
            var row = Int(view.rowStart[key])
            let end = Int(view.rowStart[key &+ 1])
            while row < end {
                let holds = view.rows[row]._withUnsafeGuaranteedRef { $0.condition == nil || $0.condition!(context) }
                if holds {
                    let written = table.regions.rows[row].written
                    var seen = false
                    for index in 0..<regions.selectedCount where table.regions.rows[Int(regions.selected[index])].written == written {
                        seen = true
                        break
                    }
                    if !seen {
                        regions.selected[regions.selectedCount] = Int32(row)
                        regions.selectedCount &+= 1
                    }
                    break
                }
                row &+= 1
            }
        }
        removeConflictingRows()
    }

    /// Two rows conflict when both move and their exits share a state: when one's domain holds
    /// the other's (the exits are the active states below the domain).
    @inlinable
    func rowsConflict(_ first: Int, _ second: Int) -> Bool {
        let firstRow = table.regions.rows[first], secondRow = table.regions.rows[second]
        guard firstRow.targetCount > 0 && secondRow.targetCount > 0 else { return false }
        let firstDomain = domain(ofRegionRow: first), secondDomain = domain(ofRegionRow: second)
        return table.isInside(firstDomain, secondDomain) || table.isInside(secondDomain, firstDomain)
    }

    /// SCXML's `removeConflictingTransitions`, in place: `selected[0..<kept]` is the filtered
    /// set, never longer than the part already read.
    @inlinable
    mutating func removeConflictingRows() {
        var kept = 0
        for index in 0..<regions.selectedCount {
            let candidate = Int(regions.selected[index])
            let source = Int(table.regions.rows[candidate].source)
            var preempted = false
            for earlier in 0..<kept {
                let other = Int(regions.selected[earlier])
                let otherSource = Int(table.regions.rows[other].source)
                if rowsConflict(candidate, other) && !(source != otherSource && table.isInside(source, otherSource)) {
                    preempted = true
                    break
                }
            }
            if preempted { continue }
            var write = 0
            for earlier in 0..<kept {
                let other = Int(regions.selected[earlier])
                if !rowsConflict(candidate, other) {
                    regions.selected[write] = Int32(other)
                    write &+= 1
                }
            }
            regions.selected[write] = Int32(candidate)
            kept = write &+ 1
        }
        regions.selectedCount = kept
    }

    /// Exits, actions and entries of the selected rows.
    @inlinable
    mutating func takeSelectedRows() -> DispatchOutcome {
        let count = table.work.count
        var moves = false
        for index in 0..<regions.selectedCount {
            let row = table.regions.rows[Int(regions.selected[index])]
            guard row.targetCount > 0 else { continue }
            let domain = domain(ofRegionRow: Int(regions.selected[index]))
            moves = true
            for state in 0..<count where regions.active[state] && state != domain && table.isInside(state, domain) {
                regions.exiting[state] = true
            }
        }
        if moves {
            // Every history is recorded before any exit work runs, from the whole configuration.
            for position in 0..<table.regions.documentOrder.count {
                let state = Int(table.regions.documentOrder[position])
                if regions.exiting[state] { recordRegionHistory(leaving: state) }
            }
            var position = table.regions.documentOrder.count
            while position > 0 {
                position &-= 1
                let state = Int(table.regions.documentOrder[position])
                guard regions.exiting[state] else { continue }
                regions.exiting[state] = false
                effects.currentState = State(rawValue: state)!
                view.work[state]._withUnsafeGuaranteedRef { $0.exit?(&context, &effects) }
                regions.active[state] = false
            }
        }
        for index in 0..<regions.selectedCount {
            let selected = Int(regions.selected[index])
            effects.currentState = State(rawValue: Int(table.regions.rows[selected].source))!
            view.rows[selected]._withUnsafeGuaranteedRef { $0.action?(&context, &effects) }
        }
        if moves {
            for index in 0..<regions.selectedCount {
                let row = table.regions.rows[Int(regions.selected[index])]
                let offset = Int(row.targetOffset), targetCount = Int(row.targetCount)
                // Worked out again for a row to a history: the exits may have just recorded
                // it, and what it stands for now is what is entered (the domain is the same:
                // a history recorded by the exits is inside a state the domain holds).
                let domain = domain(ofRegionRow: Int(regions.selected[index]))
                for position in offset..<(offset &+ targetCount) { markForEntry(Int(table.regions.targets[position])) }
                for position in offset..<(offset &+ targetCount) { markAncestorsOfTarget(Int(table.regions.targets[position]), below: domain) }
            }
            enterMarked()
        } else {
            updateInnermostState()
        }
        return moves ? .transitioned : .handledInternally
    }

    /// The transition domain of candidate row `index`: fixed at compile time for a row to
    /// states; for a row to a history, worked out from what the history stands for now (its
    /// remembered states, else its default's targets), as SCXML's `getTransitionDomain` does
    /// with `getEffectiveTargetStates`, by the rule `compile()` uses (`transitionDomain`).
    @inlinable
    func domain(ofRegionRow index: Int) -> Int {
        let row = table.regions.rows[index]
        guard row.targetsHistory else { return Int(row.domain) }
        return transitionDomain(
            source: Int(row.source), isLocal: row.isLocal, parent: { Int(table.parent[$0]) },
            isCompound: { hasChildren($0) && !table.isParallel[$0] },
            holdsEveryTarget: { ancestor in
                effectiveTargets(of: row) { $0 != ancestor && table.isInside($0, ancestor) }
            })
    }

    /// Whether `holds` is true of every state `row` targets, a history standing for the states
    /// it remembers (or, before it remembers any, its default's targets).
    @inlinable
    func effectiveTargets(of row: RegionTable.Row, allSatisfy holds: (Int) -> Bool) -> Bool {
        for position in Int(row.targetOffset)..<Int(row.targetOffset &+ row.targetCount) {
            let target = Int(table.regions.targets[position])
            let slot = Int(table.historySlot[target])
            if slot < 0 {
                if !holds(target) { return false }
                continue
            }
            let remembered = history.count(slot)
            if remembered > 0 {
                for index in 0..<remembered where !holds(history.state(slot, index)) { return false }
            } else {
                let defaults = table.regions.historyTargets[slot]
                for position in Int(defaults.offset)..<Int(defaults.offset &+ defaults.count)
                where !holds(Int(table.regions.targets[position])) {
                    return false
                }
            }
        }
        return true
    }

    /// `markAncestorsForEntry` for a target, a history standing for what it would enter.
    @inlinable
    mutating func markAncestorsOfTarget(_ target: Int, below top: Int) {
        let slot = Int(table.historySlot[target])
        guard slot >= 0 else { return markAncestorsForEntry(of: target, below: top) }
        let remembered = history.count(slot)
        if remembered > 0 {
            for index in 0..<remembered { markAncestorsForEntry(of: history.state(slot, index), below: top) }
        } else {
            let defaults = table.regions.historyTargets[slot]
            for position in Int(defaults.offset)..<Int(defaults.offset &+ defaults.count) {
                markAncestorsForEntry(of: Int(table.regions.targets[position]), below: top)
            }
        }
    }

    /// SCXML's `addDescendantStatesToEnter`: `state` and what entering it enters below it.
    @inlinable
    mutating func markForEntry(_ state: Int) {
        let slot = Int(table.historySlot[state])
        let parent = Int(table.parent[state])
        if slot >= 0 {
            let remembered = history.count(slot)
            if remembered > 0 {
                for index in 0..<remembered { markForEntry(history.state(slot, index)) }
                for index in 0..<remembered { markAncestorsForEntry(of: history.state(slot, index), below: parent) }
            } else {
                // Its default's action runs after the superstate's entry work: only when the
                // superstate is entered, not when a row from inside it, which leaves it
                // active, targets its history.
                if !regions.active[parent] { regions.historyAction[parent] = Int32(slot) }
                let defaults = table.regions.historyTargets[slot]
                let offset = Int(defaults.offset), count = Int(defaults.count)
                for position in offset..<(offset &+ count) { markForEntry(Int(table.regions.targets[position])) }
                for position in offset..<(offset &+ count) { markAncestorsForEntry(of: Int(table.regions.targets[position]), below: parent) }
            }
            return
        }
        regions.entering[state] = true
        guard hasChildren(state) else { return }
        if table.isParallel[state] {
            markRegionsForEntry(of: state)
            return
        }
        // Its initial state is chosen when it has been entered, as without regions: a guard
        // sees what the superstate's entry work did. What it enters is later in document
        // order, so `enterMarked` reaches it in the same pass.
        regions.chosenInitial[state] = RegionWorkspace.initialToChoose
    }

    /// The first initial state of `state` whose guard holds (compilation made the last
    /// unguarded): its action runs, and its targets are marked for entry.
    @inlinable
    mutating func takeInitial(of state: Int) {
        var candidate = Int(table.initialStart[state])
        let end = Int(table.initialStart[state &+ 1])
        while candidate < end &- 1 {
            if table.initials[candidate]._withUnsafeGuaranteedRef({ $0.condition?(context) ?? true }) { break }
            candidate &+= 1
        }
        table.initials[candidate]._withUnsafeGuaranteedRef { $0.action?(&context, &effects) }
        let targets = table.regions.initialTargets[candidate]
        let offset = Int(targets.offset), count = Int(targets.count)
        for position in offset..<(offset &+ count) { markForEntry(Int(table.regions.targets[position])) }
        for position in offset..<(offset &+ count) { markAncestorsOfTarget(Int(table.regions.targets[position]), below: state) }
    }

    /// SCXML's `addAncestorStatesToEnter`: the superstates of `state` strictly below `top`,
    /// with the other regions of any parallel one among them.
    @inlinable
    mutating func markAncestorsForEntry(of state: Int, below top: Int) {
        var ancestor = Int(table.parent[state])
        while ancestor >= 0 && ancestor != top {
            regions.entering[ancestor] = true
            if table.isParallel[ancestor] { markRegionsForEntry(of: ancestor) }
            ancestor = Int(table.parent[ancestor])
        }
    }

    /// Each region of `parallel` not yet being entered somewhere inside is entered at its start.
    @inlinable
    mutating func markRegionsForEntry(of parallel: Int) {
        for position in Int(table.childStart[parallel])..<Int(table.childStart[parallel &+ 1]) {
            let region = Int(table.children[position])
            var covered = false
            for state in 0..<regions.stateCount where regions.entering[state] && state != region && table.isInside(state, region) {
                covered = true
                break
            }
            if !covered { markForEntry(region) }
        }
    }

    /// Enters the marked states in document order: entry work, then the initial state's or the
    /// history default's action, then a final state's done events.
    @inlinable
    mutating func enterMarked() {
        for position in 0..<table.regions.documentOrder.count {
            let state = Int(table.regions.documentOrder[position])
            guard regions.entering[state] else { continue }
            regions.entering[state] = false
            // A state still active is not entered again: the superstates between a row's
            // domain and a history's parent (marked as the history's ancestors), and a
            // parallel state's regions, as uSCXML does (Appendix D, read literally, would
            // run their entry work again without their exit work).
            if regions.active[state] {
                regions.chosenInitial[state] = -1
                continue
            }
            regions.active[state] = true
            effects.currentState = State(rawValue: state)!
            view.work[state]._withUnsafeGuaranteedRef { $0.entry?(&context, &effects) }
            if regions.chosenInitial[state] == RegionWorkspace.initialToChoose {
                regions.chosenInitial[state] = -1
                takeInitial(of: state)
            }
            let history = Int(regions.historyAction[state])
            if history >= 0 {
                regions.historyAction[state] = -1
                table.historyDefaults[history]._withUnsafeGuaranteedRef { $0.action?(&context, &effects) }
            }
            if table.doneOnEntry[state] != -2 { completed(final: state) }
        }
        updateInnermostState()
    }

    /// A final state was entered: its superstate is done, and a parallel state around that is
    /// done when every region is.
    @inlinable
    mutating func completed(final state: Int) {
        let parent = Int(table.parent[state])
        guard parent >= 0 else { return }
        let done = Int(table.doneEvent[parent])
        if done >= 0 { effects.send(Event(rawValue: done)!) }
        let grandparent = Int(table.parent[parent])
        if grandparent >= 0 && table.isParallel[grandparent] && isInFinalState(grandparent) {
            let parallelDone = Int(table.doneEvent[grandparent])
            if parallelDone >= 0 { effects.send(Event(rawValue: parallelDone)!) }
        }
    }

    @inlinable
    func isInFinalState(_ state: Int) -> Bool {
        let start = Int(table.childStart[state])
        let end = Int(table.childStart[state &+ 1])
        if table.isParallel[state] {
            for position in start..<end where !isInFinalState(Int(table.children[position])) { return false }
            return true
        }
        for position in start..<end {
            let child = Int(table.children[position])
            if regions.active[child] && table.doneOnEntry[child] != -2 { return true }
        }
        return false
    }

    /// Before `state` is left, each of its histories remembers the active children (shallow)
    /// or the active innermost states inside it (deep).
    @inlinable
    mutating func recordRegionHistory(leaving state: Int) {
        for position in Int(table.recordStart[state])..<Int(table.recordStart[state &+ 1]) {
            let slot = Int(table.recordedSlots[position])
            let deep = table.historyIsDeep[slot]
            history.forget(slot)
            for candidate in 0..<regions.stateCount where regions.active[candidate]
                && (deep ? !hasChildren(candidate) && candidate != state && table.isInside(candidate, state) : Int(table.parent[candidate]) == state) {
                history.add(candidate, to: slot)
            }
        }
    }

    /// `state` (and `Effects.state` between steps) is the first active innermost state in
    /// document order.
    @inlinable
    mutating func updateInnermostState() {
        for position in 0..<table.regions.documentOrder.count {
            let state = Int(table.regions.documentOrder[position])
            if regions.active[state] && !hasChildren(state) {
                effects.currentState = State(rawValue: state)!
                return
            }
        }
    }
}
