import ControllerHost

/// What the store takes from an application's declaration, read once per store: the kinds it
/// counts, the gauges it keeps for each run, and how a step between two ledger entries becomes
/// counted kinds.
struct StoreDeclaration<App: ControllerApplication>: Sendable {
    /// The counters, in ``ControllerApplication/counterNames`` order (`ignored` last): the
    /// ledger entries' values by index.
    let counterNames: [String]
    /// The states whose entry or exit is a kind of its own.
    let stateCounts: [StateCount<App>]
    /// Every kind, in the order `stats` shows them: the counters, the state counts, then the
    /// kinds a gauge standing at a restart is booked under.
    let kinds: [String]
    /// The gauges, in ``ControllerApplication/gauges`` order: the ledger entries' gauge values
    /// by index, and each a column of `sessions` (`StoreSchema`).
    let gauges: [String]
    /// For each gauge, the kind its last value is booked under when the next run begins.
    let voidedKinds: [String?]
    /// The states' names by raw value: `name` reflects on the enum each time it is asked.
    let stateNames: [String]
    let invariants: [DurableInvariant]

    init() {
        counterNames = App.counterNames
        stateCounts = App.stateCounts
        gauges = App.gauges.map(\.name)
        voidedKinds = App.gauges.map(\.voidedByRestart)
        var kinds = counterNames + stateCounts.map(\.kind)
        for voided in voidedKinds.compactMap({ $0 }) where !kinds.contains(voided) { kinds.append(voided) }
        self.kinds = kinds
        stateNames = App.State.allCases.sorted { $0.rawValue < $1.rawValue }.map(\.name)
        invariants = App.durableInvariants
    }

    /// The names a kind or gauge may not take: `sessions`' own columns (a gauge is a column
    /// beside them; SQLite's names ignore case) and the keys of the unwritten-counts file.
    static var reservedNames: [String] { StoreSchema.sessionColumns + ["session", "time"] }

    /// What is wrong with the declaration's names for a store, one sentence each; empty when
    /// nothing is. A store refuses to open with any (`CountStore.open`).
    var problems: [String] {
        var problems: [String] = []
        var seen: [String: String] = [:]
        func claim(_ name: String, _ what: String) {
            if let earlier = seen[name] {
                problems.append("\"\(name)\" names both \(earlier) and \(what): each kind and gauge needs a name of its own")
            } else {
                seen[name] = what
            }
            if name.isEmpty || name.contains(where: { $0.isWhitespace }) {
                problems.append("\(what) \"\(name)\" is empty or has a space or line break: the unwritten-counts file writes it as one word")
            } else if let reserved = Self.reservedNames.first(where: { $0.lowercased() == name.lowercased() }) {
                problems.append("\(what) \"\(name)\" is called like the store's own \(reserved): rename it")
            }
        }
        for name in counterNames { claim(name, "the counter") }
        for count in stateCounts { claim(count.kind, "the state count") }
        for kind in Set(voidedKinds.compactMap { $0 }).sorted() where !counterNames.contains(kind) && !stateCounts.contains(where: { $0.kind == kind }) {
            claim(kind, "the voided kind")
        }
        for (gauge, voided) in zip(gauges, voidedKinds) {
            if let voided, counterNames.contains(voided) || stateCounts.contains(where: { $0.kind == voided }) {
                problems.append("the gauge \"\(gauge)\" is voided into \"\(voided)\", which the machine counts itself: give it a kind of its own")
            }
        }
        for gauge in gauges { claim(gauge, "the gauge") }
        let lowered = Dictionary(grouping: gauges, by: { $0.lowercased() })
        for (_, same) in lowered.sorted(by: { $0.key < $1.key }) where Set(same).count > 1 {
            problems.append("the gauges \(same.map { "\"\($0)\"" }.joined(separator: " and ")) differ only in case: SQLite's column names do not")
        }
        for invariant in invariants {
            for name in [invariant.total] + invariant.parts where seen[name] == nil {
                problems.append("the durable invariant \"\(invariant.name)\" names \"\(name)\", which is no kind or gauge")
            }
        }
        return problems
    }

    /// Stops the program if the declaration's names cannot be stored: the application's author
    /// must rename, and no database is touched before.
    func requireValid() {
        let found = problems
        precondition(found.isEmpty, "the \(App.name) declaration cannot be stored: \(found.joined(separator: "; "))")
    }

    /// A dictionary with every kind at 0.
    var zeroCounts: [String: Int] { Dictionary(uniqueKeysWithValues: kinds.map { ($0, 0) }) }

    /// The gauge values of a ledger entry, by name.
    func gaugeValues(_ values: CounterValues) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: gauges.enumerated().map { ($0.element, values[$0.offset]) })
    }

    /// Calls `body` with each kind the step to `entry` counted and by how much: every counter's
    /// increase since `counters`, in declaration order, then each state count the step made
    /// (from `countedStates`, the bits of the entry before: ``LedgerEntry``'s).
    ///
    /// - Throws: `StoreError.counterWentBackwards` when a counter is below its value in
    ///   `counters` (a controller that restarted within one session).
    func forEachCount(
        from counters: CounterValues, _ countedStates: UInt64, to entry: LedgerEntry<App>, path: String,
        _ body: (_ kind: String, _ amount: Int) -> Void
    ) throws(StoreError) {
        for index in counterNames.indices {
            let before = counters[index], after = entry.counters[index]
            if after == before { continue }
            guard after > before else {
                throw .counterWentBackwards(path: path, counter: counterNames[index], from: before, to: after)
            }
            body(counterNames[index], after - before)
        }
        App.forEachStateCount(from: countedStates, to: entry.countedStates) { body(stateCounts[$0].kind, 1) }
    }
}
