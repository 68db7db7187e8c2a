/// `compile()`'s search for loops of sent events it can be certain of: from every innermost
/// state and event, the step is played on the definition alone — the first row that answers
/// (its own state's, then its superstates'), taken only when it has no guard; the exit, action
/// and entry work it runs, each sending what it declares (`sends:`, or nothing for no work);
/// the done event of a final state entered; the initial states drilled into when there is one
/// unguarded choice. Where anything is not certain (a guard, work that declares nothing, a
/// history, an eventless row that may apply, parallel regions) the search stops there, and
/// the run-time bound (``MachineLimits/maximumInternalEvents``) is what ends such a step. A
/// configuration (innermost state, queued events) met twice, or a queue that keeps growing,
/// is a step that can never settle: refused, naming the rows.
extension MachineDefinition {
    /// Above this many queued events the queue is taken to grow without end (no real chain
    /// queues this many at once; the machine's own queue holds 16 by default).
    static var sendLoopQueueBound: Int { 64 }
    /// How many dispatches the whole search may play before it gives up (the run-time bound
    /// still holds): a few per state and event of a large machine.
    static var sendLoopSearchBudget: Int { 200_000 }

    /// The shortest `p` such that `items` repeats every `p` (all of them when none does).
    static func shortestPeriod(of items: [[Int]]) -> Int {
        guard items.count > 1 else { return items.count }
        for period in 1...(items.count / 2) where (0..<(items.count - period)).allSatisfy({ items[$0] == items[$0 + period] }) {
            return period
        }
        return items.count
    }

    func checkSendLoops(blockOfState: [Int], hierarchy: StateHierarchy, into problems: inout [DefinitionProblem]) {
        if hierarchy.isParallel.contains(true) { return }
        let eventless = Event.allCases.count
        let rowsByTrigger: [[[Int]]] = blocks.map { block in
            var byTrigger = [[Int]](repeating: [], count: eventless + 1)
            for (position, spec) in block.rows.enumerated() { byTrigger[spec.event?.index ?? eventless].append(position) }
            return byTrigger
        }
        /// Whether some block on `state`'s chain has an eventless row (which may apply after a step).
        let mayMoveByItself: [Bool] = (0..<blockOfState.count).map { state in
            var walker = state
            while walker >= 0 {
                if blockOfState[walker] >= 0 && !rowsByTrigger[blockOfState[walker]][eventless].isEmpty { return true }
                walker = hierarchy.parent[walker]
            }
            return false
        }
        /// What `work` sends for certain: nothing without work, its declaration with one, nil
        /// (not certain) for work that declares nothing.
        func certainSends(_ work: MachineAction<State, Event, Context>?, _ declared: [Event]?) -> [Int]? {
            if let declared { return declared.map { $0.index } }
            return work == nil ? [] : nil
        }
        /// One step played: where the machine ends and what it queued; nil when not certain.
        /// `row` is the row taken (block, position), nil when the event is ignored.
        func play(_ leaf: Int, _ event: Int) -> (leaf: Int, sent: [Int], row: (block: Int, position: Int)?)? {
            var source = leaf
            while source >= 0 {
                let block = blockOfState[source]
                if let first = rowsByTrigger[block][event].first {
                    let spec = blocks[block].rows[first]
                    guard spec.guard == nil else { return nil }
                    guard let actionSends = certainSends(spec.action, spec.sends) else { return nil }
                    guard let target = spec.target else { return (leaf, actionSends, (block, first)) }
                    var sent: [Int] = []
                    let domain = hierarchy.domain(source: source, targets: [target.index], kind: spec.kind)
                    var exiting = leaf
                    while exiting != domain && exiting >= 0 {
                        let exited = blocks[blockOfState[exiting]]
                        guard let sends = certainSends(exited.exit, exited.exitSends) else { return nil }
                        sent += sends
                        exiting = hierarchy.parent[exiting]
                    }
                    sent += actionSends
                    var path = hierarchy.path(from: domain, down: target.index)
                    var current = target.index
                    while true {
                        for state in path {
                            guard hierarchy.historySlot[state] < 0 else { return nil }
                            let entered = blocks[blockOfState[state]]
                            guard let sends = certainSends(entered.entry, entered.entrySends) else { return nil }
                            sent += sends
                            let parent = hierarchy.parent[state]
                            if entered.isFinal, parent >= 0, let done = blocks[blockOfState[parent]].doneEvent { sent.append(done.index) }
                        }
                        guard hierarchy.isCompound[current] else { break }
                        let initials = blocks[blockOfState[current]].initials
                        guard initials.count == 1, initials[0].guard == nil, initials[0].action == nil else { return nil }
                        path = hierarchy.path(from: current, down: initials[0].target.index)
                        current = initials[0].target.index
                    }
                    if mayMoveByItself[current] { return nil }
                    return (current, sent, (block, first))
                }
                source = hierarchy.parent[source]
            }
            return (leaf, [], nil)
        }

        var budget = Self.sendLoopSearchBudget
        /// Configurations already known to settle or to be uncertain.
        var known = Set<[Int]>()
        var reported = Set<[Int]>()
        // Final states too: one inside a superstate is an innermost state answering its
        // superstates' rows (its done event among them).
        let leaves = (0..<blockOfState.count).filter { blockOfState[$0] >= 0 && !hierarchy.isCompound[$0] }
        /// Whether the step from `leaf` on `event` may send anything for certain, without
        /// playing it (nothing allocated): its first answering row unguarded, and then either
        /// its action declares sends or it moves to where some work may send. Most pairs of a
        /// large machine answer nothing, and are passed over here.
        let someWorkSends = blocks.contains { block in
            !(block.entrySends ?? []).isEmpty || !(block.exitSends ?? []).isEmpty || block.doneEvent != nil
        }
        func mayStart(_ leaf: Int, _ event: Int) -> Bool {
            var source = leaf
            while source >= 0 {
                let block = blockOfState[source]
                if let first = rowsByTrigger[block][event].first {
                    let spec = blocks[block].rows[first]
                    guard spec.guard == nil, spec.action == nil || spec.sends != nil else { return false }
                    if !(spec.sends ?? []).isEmpty { return true }
                    return spec.target != nil && someWorkSends
                }
                source = hierarchy.parent[source]
            }
            return false
        }
        search: for leaf in leaves where !mayMoveByItself[leaf] {
            for event in 0..<eventless where mayStart(leaf, event) {
                if budget <= 0 { break search }
                var configuration = [leaf, event]
                if known.contains(configuration) { continue }
                var seenAt: [[Int]: Int] = [:]
                var path: [[Int]] = []
                var steps: [(from: Int, event: Int, to: Int, row: (block: Int, position: Int)?)] = []
                var loopStart: Int?
                while configuration.count > 1, budget > 0, !known.contains(configuration) {
                    if let earlier = seenAt[configuration] {
                        loopStart = earlier
                        break
                    }
                    if configuration.count - 1 > Self.sendLoopQueueBound {
                        loopStart = 0
                        break
                    }
                    seenAt[configuration] = steps.count
                    path.append(configuration)
                    budget -= 1
                    let (from, next) = (configuration[0], configuration[1])
                    guard let step = play(from, next) else { break }
                    steps.append((from, next, step.leaf, step.row))
                    configuration = [step.leaf] + configuration.dropFirst(2) + step.sent
                }
                if let loopStart {
                    // A queue that grew repeats one period many times: named once.
                    let looped = Array(steps[loopStart...])
                    let cycle = looped.prefix(Self.shortestPeriod(of: looped.map { [$0.from, $0.event, $0.to] }))
                    let rowKey = cycle.compactMap { $0.row.map { [$0.block, $0.position] } }.flatMap { $0 }
                    if !rowKey.isEmpty, !reported.contains(rowKey) {
                        reported.insert(rowKey)
                        let described = cycle.map { step -> String in
                            let move = "\(name(of: step.from)) --\(Event(rawValue: step.event)!.name)--> \(name(of: step.to))"
                            guard let row = step.row else { return "\(move) (ignored)" }
                            return "\(move) (\(blocks[row.block].rows[row.position].location))"
                        }
                        let first = cycle.first { $0.row != nil }!.row!
                        let grows = seenAt[configuration] == nil
                        problems.append(DefinitionProblem(
                            kind: .sendLoop, state: name(of: cycle.first!.from), event: described.isEmpty ? nil : Event(rawValue: cycle.first!.event)!.name,
                            message: "\(blocks[first.block].rows[first.position].location): once this row is taken the machine never settles: \(described.joined(separator: ", ")) \(grows ? "queue more events than they take" : "repeat for ever"), each step certain (no guard, and work that always sends the next event); give one of these rows a guard (a cond) that its own move makes false, or send the event from elsewhere"))
                    }
                }
                for seen in path { known.insert(seen) }
            }
        }
    }
}
