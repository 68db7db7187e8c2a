/// A statechart as SCXML writes it, for the reference interpreter below and for the runtime
/// (`AppendixDPropertyTests` builds a `MachineDefinition` from it). States are numbered with
/// parents before children; document order is the depth-first walk, children in number order.
struct Chart: CustomStringConvertible {
    enum Kind: Equatable { case atomic, compound, parallel, final, history(deep: Bool) }

    /// Executable content that schedules: `<cancel sendid="kID"/>` then `<send id="kID"
    /// event="eEVENT" delay="DELAYms"/>` (a send that replaces its id's pending one), or
    /// `<cancel sendid="kID"/>` alone.
    enum Delayed: Equatable, CustomStringConvertible {
        case send(id: Int, event: Int, delay: Int)
        case cancel(id: Int)

        var description: String {
            switch self {
            case .send(let id, let event, let delay): "send k\(id) e\(event) after \(delay)ms"
            case .cancel(let id): "cancel k\(id)"
            }
        }
    }

    struct Transition {
        var id: Int
        var source: Int
        /// An external event's number, or -1 for an eventless transition.
        var event: Int
        /// Enabled when `counter % modulus == remainder`.
        var condition: (modulus: Int, remainder: Int)?
        /// `In('sN')`: enabled only while state N is in the configuration (with `condition`,
        /// both must hold).
        var inState: Int? = nil
        /// Empty for a targetless transition.
        var targets: [Int]
        /// `type="internal"` (the runtime's `.local`).
        var isInternal: Bool
        /// An event the transition's content raises, after its journal line.
        var raises: Int?
        /// A delayed send or a cancel in the transition's content.
        var delayed: Delayed? = nil
    }

    var parent: [Int]
    var kind: [Kind]
    /// A compound state's `<initial>` transition's target.
    var initial: [Int?]
    /// A history's default transition's targets.
    var historyDefault: [[Int]]
    /// Each state's transitions, in document order.
    var transitions: [[Transition]]
    /// The event a compound or parallel state raises when done (`done.state.ID`), if any.
    var doneEvent: [Int?]
    /// An event a state's `<onentry>` raises, if any.
    var entryRaises: [Int?]
    /// A delayed send or a cancel in a state's `<onentry>`, and one in its `<onexit>`.
    var entryDelayed: [Delayed?] = []
    var exitDelayed: [Delayed?] = []

    var count: Int { parent.count }

    func isDescendant(_ state: Int, of ancestor: Int) -> Bool {
        if state == ancestor { return false }
        if ancestor < 0 { return true }
        var walker = parent[state]
        while walker >= 0 {
            if walker == ancestor { return true }
            walker = parent[walker]
        }
        return false
    }

    func childStates(of state: Int) -> [Int] {
        (0..<count).filter { parent[$0] == state && !isHistory($0) }
    }

    func isHistory(_ state: Int) -> Bool {
        if case .history = kind[state] { return true }
        return false
    }

    func isDeepHistory(_ state: Int) -> Bool { kind[state] == .history(deep: true) }

    /// SCXML's compound state: a `<state>` with child states.
    func isCompound(_ state: Int) -> Bool { kind[state] == .compound }

    /// Atomic states, final ones included: states with no child states.
    func isAtomic(_ state: Int) -> Bool { kind[state] == .atomic || kind[state] == .final }

    /// Ancestors of `state` strictly below `top` (-1: all of them), innermost first.
    func properAncestors(of state: Int, upTo top: Int = -1) -> [Int] {
        var result: [Int] = []
        var walker = parent[state]
        while walker >= 0 && walker != top {
            result.append(walker)
            walker = parent[walker]
        }
        return result
    }

    /// Each state's position in document order.
    var documentPosition: [Int] {
        var position = [Int](repeating: -1, count: count)
        var next = 0
        func walk(_ state: Int) {
            position[state] = next
            next += 1
            for child in (0..<count) where parent[child] == state { walk(child) }
        }
        for state in 0..<count where parent[state] < 0 { walk(state) }
        return position
    }

    var description: String {
        (0..<count).map { state in
            var line = "s\(state) in \(parent[state]) \(kind[state])"
            if let initial = initial[state] { line += " initial s\(initial)" }
            if !historyDefault[state].isEmpty { line += " default \(historyDefault[state].map { "s\($0)" })" }
            if let done = doneEvent[state] { line += " done e\(done)" }
            if let raised = entryRaises[state] { line += " entry raises e\(raised)" }
            if let delayed = entryDelayed.isEmpty ? nil : entryDelayed[state] { line += " entry \(delayed)" }
            if let delayed = exitDelayed.isEmpty ? nil : exitDelayed[state] { line += " exit \(delayed)" }
            for t in transitions[state] {
                line += "\n    t\(t.id) \(t.event < 0 ? "eventless" : "e\(t.event)")"
                if let c = t.condition { line += " [\(c.modulus),\(c.remainder)]" }
                if let state = t.inState { line += " [In(s\(state))]" }
                line += " -> \(t.targets.map { "s\($0)" })\(t.isInternal ? " internal" : "")"
                if let raised = t.raises { line += " raises e\(raised)" }
                if let delayed = t.delayed { line += " \(delayed)" }
            }
            return line
        }.joined(separator: "\n")
    }
}

/// SCXML 1.0's Appendix D ("Algorithm for SCXML Interpretation"), transcribed function by
/// function for the tests: plain, slow, sharing no code with the runtime. Its executable content
/// is a journal (`+s` on entry, `-s` on exit, `t` for a transition's content, `i` for an
/// initial transition's, `h` for a history default's) and a counter the conditions read, moved
/// by every line. One reading of the Recommendation is made explicit where it is silent: a state
/// already in the configuration is not entered again (the ancestors of a history's states up to
/// its parent may be active when the transition's domain lies below the parent), as uSCXML does;
/// read literally, `enterStates` would run their `<onentry>` again without their `<onexit>`.
/// `In()` reads the configuration as the condition is evaluated. A delayed send waits, with the
/// time it is due, until the test's clock passes that time (`advance(to:)`); it then goes into
/// the external queue, and each is taken as an external event is. Two due at one instant are
/// taken in the order of their ids (the Recommendation leaves that order to the platform). The
/// top-level `<final>` is not modelled.
struct AppendixDInterpreter {
    let chart: Chart
    let position: [Int]
    var configuration: Set<Int> = []
    var historyValue: [Int: [Int]] = [:]
    var internalQueue: [Int] = []
    var journal: [String] = []
    var counter = 0
    /// The test's clock, in milliseconds: what a delayed send counts its delay from.
    var now = 0
    /// Delayed sends not yet delivered: id, event, when due (in milliseconds).
    var pending: [(id: Int, event: Int, due: Int)] = []
    /// Delayed sends delivered so far.
    var delivered = 0
    /// Microsteps and internal events taken in the current macrostep; past `bound` the
    /// macrostep stops and `exceededBound` is set. The runtime, whose bounds (`MachineLimits`:
    /// 256 internal events a step, 64 eventless microsteps each) end a step sooner, is compared
    /// only on steps it settled, which take fewer.
    var stepsInMacrostep = 0
    var exceededBound = false
    static let bound = 20_000

    init(_ chart: Chart) {
        self.chart = chart
        position = chart.documentPosition
    }

    func entryOrder(_ states: Set<Int>) -> [Int] { states.sorted { position[$0] < position[$1] } }
    func exitOrder(_ states: Set<Int>) -> [Int] { states.sorted { position[$0] > position[$1] } }

    func holds(_ condition: (modulus: Int, remainder: Int)?) -> Bool {
        condition.map { counter % $0.modulus == $0.remainder } ?? true
    }

    /// A transition's whole condition: its counter condition and its `In()`.
    func holds(_ transition: Chart.Transition) -> Bool {
        holds(transition.condition) && transition.inState.map { configuration.contains($0) } ?? true
    }

    mutating func line(_ text: String, _ weight: Int) {
        journal.append(text)
        counter += weight
    }

    /// `<send>` with a delay (after cancelling its id's pending one, as the chart writes it) or
    /// `<cancel>`.
    mutating func run(_ delayed: Chart.Delayed?) {
        switch delayed {
        case .send(let id, let event, let delay)?:
            pending.removeAll { $0.id == id }
            pending.append((id, event, now + delay))
        case .cancel(let id)?:
            pending.removeAll { $0.id == id }
        case nil:
            break
        }
    }

    /// When the next delayed send is due, if one is pending.
    var nextDue: Int? { pending.map(\.due).min() }

    /// Moves the clock to `time` (no later than ``nextDue``) and takes every delayed send due
    /// then, one after another, each with its macrostep.
    mutating func advance(to time: Int) {
        now = time
        while let next = pending.filter({ $0.due <= time }).min(by: { ($0.due, $0.id) < ($1.due, $1.id) }) {
            pending.removeAll { $0.id == next.id }
            delivered += 1
            send(next.event)
        }
    }

    // MARK: interpret, mainEventLoop

    mutating func start() {
        // The document's initial transition, from the <scxml> element to s0.
        let initial = Chart.Transition(id: -1, source: -1, event: -1, condition: nil, targets: [0], isInternal: false, raises: nil)
        enterStates([initial])
        macrostep()
    }

    /// An external event, then the macrostep it starts.
    mutating func send(_ event: Int) {
        stepsInMacrostep = 0
        let enabled = selectTransitions(event: event)
        if !enabled.isEmpty { microstep(enabled) }
        macrostep()
    }

    /// mainEventLoop's inner loop: eventless transitions, then internal events, until neither.
    mutating func macrostep() {
        while !exceededBound {
            var enabled = selectEventlessTransitions()
            if enabled.isEmpty {
                if internalQueue.isEmpty { return }
                let event = internalQueue.removeFirst()
                enabled = selectTransitions(event: event)
            }
            if !enabled.isEmpty { microstep(enabled) }
            stepsInMacrostep += 1
            if stepsInMacrostep > Self.bound { exceededBound = true }
        }
    }

    // MARK: selecting transitions

    func atomicStatesInDocumentOrder() -> [Int] { entryOrder(configuration.filter { chart.isAtomic($0) }) }

    func selectEventlessTransitions() -> [Chart.Transition] { select { $0.event < 0 } }

    func selectTransitions(event: Int) -> [Chart.Transition] { select { $0.event == event } }

    func select(_ matches: (Chart.Transition) -> Bool) -> [Chart.Transition] {
        var enabled: [Chart.Transition] = []
        for state in atomicStatesInDocumentOrder() {
            search: for candidate in [state] + chart.properAncestors(of: state) {
                for t in chart.transitions[candidate] where matches(t) && holds(t) {
                    if !enabled.contains(where: { $0.id == t.id }) { enabled.append(t) }
                    break search
                }
            }
        }
        return removeConflictingTransitions(enabled)
    }

    func removeConflictingTransitions(_ enabled: [Chart.Transition]) -> [Chart.Transition] {
        var filtered: [Chart.Transition] = []
        for t1 in enabled {
            var t1Preempted = false
            var toRemove: Set<Int> = []
            for t2 in filtered where !computeExitSet([t1]).isDisjoint(with: computeExitSet([t2])) {
                if chart.isDescendant(t1.source, of: t2.source) {
                    toRemove.insert(t2.id)
                } else {
                    t1Preempted = true
                    break
                }
            }
            if !t1Preempted {
                filtered.removeAll { toRemove.contains($0.id) }
                filtered.append(t1)
            }
        }
        return filtered
    }

    // MARK: microstep

    mutating func microstep(_ enabled: [Chart.Transition]) {
        exitStates(enabled)
        executeTransitionContent(enabled)
        enterStates(enabled)
    }

    mutating func exitStates(_ enabled: [Chart.Transition]) {
        let statesToExit = exitOrder(computeExitSet(enabled))
        for s in statesToExit {
            for h in 0..<chart.count where chart.parent[h] == s && chart.isHistory(h) {
                historyValue[h] = chart.isDeepHistory(h)
                    ? entryOrder(configuration.filter { chart.isAtomic($0) && chart.isDescendant($0, of: s) })
                    : entryOrder(configuration.filter { chart.parent[$0] == s })
            }
        }
        for s in statesToExit {
            line("-s\(s)", 2)
            if !chart.exitDelayed.isEmpty { run(chart.exitDelayed[s]) }
            configuration.remove(s)
        }
    }

    func computeExitSet(_ transitions: [Chart.Transition]) -> Set<Int> {
        var statesToExit: Set<Int> = []
        for t in transitions where !t.targets.isEmpty {
            let domain = getTransitionDomain(t)
            for s in configuration where chart.isDescendant(s, of: domain) { statesToExit.insert(s) }
        }
        return statesToExit
    }

    mutating func executeTransitionContent(_ enabled: [Chart.Transition]) {
        for t in enabled {
            line("t\(t.id)", 3)
            if let raised = t.raises { internalQueue.append(raised) }
            run(t.delayed)
        }
    }

    mutating func enterStates(_ enabled: [Chart.Transition]) {
        var statesToEnter: Set<Int> = []
        var statesForDefaultEntry: Set<Int> = []
        var defaultHistoryContent: [Int: Int] = [:]
        computeEntrySet(enabled, &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent)
        for s in entryOrder(statesToEnter) {
            if configuration.contains(s) { continue }
            configuration.insert(s)
            line("+s\(s)", 1)
            if let raised = chart.entryRaises[s] { internalQueue.append(raised) }
            if !chart.entryDelayed.isEmpty { run(chart.entryDelayed[s]) }
            if statesForDefaultEntry.contains(s) { line("i\(s)", 7) }
            if let history = defaultHistoryContent[s] { line("h\(history)", 5) }
            if chart.kind[s] == .final {
                let parent = chart.parent[s]
                if let done = chart.doneEvent[parent] { internalQueue.append(done) }
                let grandparent = chart.parent[parent]
                if grandparent >= 0 && chart.kind[grandparent] == .parallel
                    && chart.childStates(of: grandparent).allSatisfy(isInFinalState), let done = chart.doneEvent[grandparent] {
                    internalQueue.append(done)
                }
            }
        }
    }

    func computeEntrySet(
        _ transitions: [Chart.Transition], _ statesToEnter: inout Set<Int>, _ statesForDefaultEntry: inout Set<Int>,
        _ defaultHistoryContent: inout [Int: Int]
    ) {
        for t in transitions {
            for s in t.targets { addDescendantStatesToEnter(s, &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent) }
            let ancestor = getTransitionDomain(t)
            for s in getEffectiveTargetStates(t) {
                addAncestorStatesToEnter(s, ancestor, &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent)
            }
        }
    }

    func addDescendantStatesToEnter(
        _ state: Int, _ statesToEnter: inout Set<Int>, _ statesForDefaultEntry: inout Set<Int>, _ defaultHistoryContent: inout [Int: Int]
    ) {
        if chart.isHistory(state) {
            if let remembered = historyValue[state] {
                for s in remembered { addDescendantStatesToEnter(s, &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent) }
                for s in remembered {
                    addAncestorStatesToEnter(s, chart.parent[state], &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent)
                }
            } else {
                defaultHistoryContent[chart.parent[state]] = state
                for s in chart.historyDefault[state] {
                    addDescendantStatesToEnter(s, &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent)
                }
                for s in chart.historyDefault[state] {
                    addAncestorStatesToEnter(s, chart.parent[state], &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent)
                }
            }
            return
        }
        statesToEnter.insert(state)
        if chart.isCompound(state) {
            statesForDefaultEntry.insert(state)
            let target = chart.initial[state]!
            addDescendantStatesToEnter(target, &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent)
            addAncestorStatesToEnter(target, state, &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent)
        } else if chart.kind[state] == .parallel {
            for child in chart.childStates(of: state) where !statesToEnter.contains(where: { chart.isDescendant($0, of: child) }) {
                addDescendantStatesToEnter(child, &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent)
            }
        }
    }

    func addAncestorStatesToEnter(
        _ state: Int, _ ancestor: Int, _ statesToEnter: inout Set<Int>, _ statesForDefaultEntry: inout Set<Int>,
        _ defaultHistoryContent: inout [Int: Int]
    ) {
        for anc in chart.properAncestors(of: state, upTo: ancestor) {
            statesToEnter.insert(anc)
            if chart.kind[anc] == .parallel {
                for child in chart.childStates(of: anc) where !statesToEnter.contains(where: { chart.isDescendant($0, of: child) }) {
                    addDescendantStatesToEnter(child, &statesToEnter, &statesForDefaultEntry, &defaultHistoryContent)
                }
            }
        }
    }

    func isInFinalState(_ s: Int) -> Bool {
        if chart.isCompound(s) {
            return chart.childStates(of: s).contains { chart.kind[$0] == .final && configuration.contains($0) }
        }
        if chart.kind[s] == .parallel { return chart.childStates(of: s).allSatisfy(isInFinalState) }
        return false
    }

    func getTransitionDomain(_ t: Chart.Transition) -> Int {
        let tstates = getEffectiveTargetStates(t)
        if tstates.isEmpty { return -2 }
        if t.isInternal && t.source >= 0 && chart.isCompound(t.source) && tstates.allSatisfy({ chart.isDescendant($0, of: t.source) }) {
            return t.source
        }
        return findLCCA([t.source] + tstates)
    }

    /// The innermost compound state (or the document, -1) that is a proper ancestor of the
    /// first state and holds the others.
    func findLCCA(_ states: [Int]) -> Int {
        guard states[0] >= 0 else { return -1 }
        for anc in chart.properAncestors(of: states[0]) where chart.isCompound(anc) {
            if states.dropFirst().allSatisfy({ chart.isDescendant($0, of: anc) }) { return anc }
        }
        return -1
    }

    func getEffectiveTargetStates(_ t: Chart.Transition) -> [Int] {
        var targets: [Int] = []
        for s in t.targets {
            if chart.isHistory(s) {
                for remembered in historyValue[s] ?? chart.historyDefault[s] where !targets.contains(remembered) {
                    targets.append(remembered)
                }
            } else if !targets.contains(s) {
                targets.append(s)
            }
        }
        return targets
    }
}
