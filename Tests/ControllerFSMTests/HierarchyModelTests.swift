import ControllerFSMSim
import ControllerTestSupport
import ControllerFSM
import Testing

/// Random nested machines (superstates up to four levels, guarded initial states, shallow and
/// deep history, local and external rows, guards that fall through to superstates), each run on
/// the runtime and on a reference interpreter written here from the statechart rules (SCXML's
/// transition domain; exit innermost first; history recorded before its superstate is left;
/// entry outermost first; a superstate entered as a target starts at its first initial state
/// whose guard holds; a row to a history takes its domain from what the history stands for
/// when the row is taken — what it remembers, else its default — and the history's default
/// action runs only when the history's superstate is itself entered). The two journals — every exit, action and entry, in order — and the
/// innermost state must agree after every event.
/// Eventless rows (guarded) are taken after every step until none holds, as SCXML's microsteps.
@Suite("Nested machines against a reference interpreter")
struct HierarchyModelTests {
    enum RS: Int, MachineSymbol { case s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11 }
    enum RE: Int, MachineSymbol { case e0, e1, e2, e3 }
    struct RC {
        var journal: [String] = []
        var counter = 0
    }

    struct Row {
        var id: Int
        /// -1 for an eventless row.
        var event: Int
        /// Holds when `counter % modulus == remainder`.
        var condition: (modulus: Int, remainder: Int)?
        var target: Int?
        var external: Bool
    }

    /// A generated machine.
    struct Spec: CustomStringConvertible {
        var parent: [Int]
        var history: [Bool]
        var deep: [Bool]
        var historyDefault: [Int]
        var rows: [[Row]]
        var initials: [[(condition: (modulus: Int, remainder: Int)?, target: Int)]]

        var count: Int { parent.count }
        func isInside(_ state: Int, _ ancestor: Int) -> Bool {
            var walker = state
            while walker >= 0 { if walker == ancestor { return true }; walker = parent[walker] }
            return ancestor < 0
        }
        func isCompound(_ state: Int) -> Bool { (0..<count).contains { parent[$0] == state && !history[$0] } }
        func depth(_ state: Int) -> Int { parent[state] < 0 ? 0 : depth(parent[state]) + 1 }
        func descendants(of state: Int) -> [Int] {
            (0..<count).filter { $0 != state && !history[$0] && isInside($0, state) }
        }

        var description: String {
            var text = ""
            for state in 0..<count {
                text += "s\(state) in \(parent[state])\(history[state] ? (deep[state] ? " deep history" : " history") + " default s\(historyDefault[state])" : "")"
                text += " initials \(initials[state].map { "\($0.condition.map { "[\($0.modulus),\($0.remainder)]" } ?? "")s\($0.target)" })"
                text += " rows \(rows[state].map { "e\($0.event)\($0.condition.map { "[\($0.modulus),\($0.remainder)]" } ?? "")->\($0.target.map { "s\($0)" } ?? "-")\($0.external ? "X" : "")" })\n"
            }
            return text
        }
    }

    static func generate(seed: UInt64) -> Spec {
        var random = SplitMix64(seed: seed)
        let count = RS.allCases.count
        var parent = [Int](repeating: -1, count: count)
        for state in 1..<count where random.chance(0.65) {
            let candidates = (0..<state).filter { Self.depthOf($0, parent) < 3 }
            parent[state] = candidates[random.below(candidates.count)]
        }
        var history = [Bool](repeating: false, count: count)
        var deep = [Bool](repeating: false, count: count)
        for state in stride(from: count - 1, through: 1, by: -1) {
            let p = parent[state]
            guard p >= 0, !parent.contains(state), random.chance(0.3) else { continue }
            let siblings = (0..<count).filter { parent[$0] == p && $0 != state && !history[$0] }
            guard !siblings.isEmpty else { continue }
            history[state] = true
            deep[state] = random.chance(0.5)
        }
        var spec = Spec(
            parent: parent, history: history, deep: deep, historyDefault: [Int](repeating: -1, count: count),
            rows: [[Row]](repeating: [], count: count), initials: Array(repeating: [], count: count))
        func condition() -> (modulus: Int, remainder: Int) {
            let modulus = 2 + random.below(3)
            return (modulus, random.below(modulus))
        }
        for state in 0..<count {
            if history[state] {
                let inside = spec.descendants(of: parent[state])
                spec.historyDefault[state] = inside[random.below(inside.count)]
            } else if spec.isCompound(state) {
                let inside = spec.descendants(of: state)
                if random.chance(0.4) { spec.initials[state].append((condition(), inside[random.below(inside.count)])) }
                spec.initials[state].append((nil, inside[random.below(inside.count)]))
            }
        }
        var nextID = 0
        func addRow(to state: Int, target: Int?) {
            spec.rows[state].append(Row(
                id: nextID, event: random.below(RE.allCases.count), condition: random.chance(0.5) ? condition() : nil,
                target: target, external: random.chance(0.3)))
            nextID += 1
        }
        let real = (0..<count).filter { !history[$0] }
        // Every state is the target of a row in an earlier one, so all are reachable from s0.
        for state in 1..<count {
            let earlier = real.filter { $0 < state }
            addRow(to: earlier[random.below(earlier.count)], target: state)
        }
        for state in real {
            for _ in 0..<random.below(4) {
                addRow(to: state, target: random.chance(0.2) ? nil : random.below(count))
            }
            // Eventless rows, always guarded (an unguarded one may loop for certain, which
            // compile() refuses): a guard on the counter, which every step moves.
            if random.chance(0.15) {
                spec.rows[state].append(Row(
                    id: nextID, event: -1, condition: condition(), target: random.chance(0.2) ? nil : random.below(count),
                    external: random.chance(0.3)))
                nextID += 1
            }
        }
        // Per event, guarded rows first and at most one unguarded, last: compile() refuses a
        // row behind an unguarded one.
        for state in real {
            var ordered: [Row] = []
            for event in -1..<RE.allCases.count {
                var rows = spec.rows[state].filter { $0.event == event }
                for index in rows.indices.dropLast() where rows[index].condition == nil { rows[index].condition = (2, 0) }
                ordered += rows
            }
            spec.rows[state] = ordered
        }
        return spec
    }

    static func depthOf(_ state: Int, _ parent: [Int]) -> Int { parent[state] < 0 ? 0 : depthOf(parent[state], parent) + 1 }

    static func symbol(_ index: Int) -> RS { RS(rawValue: index)! }

    static func definition(of spec: Spec) -> MachineDefinition<RS, RE, RC> {
        definition(of: spec, symbol: symbol, top: nil)
    }

    /// The machine of `spec` over the state enum `S` (`symbol` naming spec's states in it), its
    /// top states inside `top` when given.
    static func definition<S: MachineSymbol>(of spec: Spec, symbol: (Int) -> S, top: S?) -> MachineDefinition<S, RE, RC> {
        var definition = MachineDefinition<S, RE, RC>(initial: symbol(0))
        func guardOf(_ condition: (modulus: Int, remainder: Int)?) -> Guard<RC>? {
            condition.map { condition in Guard("counter % \(condition.modulus) == \(condition.remainder)") { $0.counter % condition.modulus == condition.remainder } }
        }
        for state in 0..<spec.count {
            if spec.history[state] {
                definition.history(symbol(state), of: symbol(spec.parent[state]), deep: spec.deep[state], default: symbol(spec.historyDefault[state])) { c, _ in
                    c.journal.append("h\(state)")
                    c.counter += 5
                }
                continue
            }
            definition.state(symbol(state), in: spec.parent[state] < 0 ? top : symbol(spec.parent[state])) { s in
                for initial in spec.initials[state] { s.initial(symbol(initial.target), when: guardOf(initial.condition)) }
                s.onEntry { c, _ in c.journal.append("+s\(state)"); c.counter += 1 }
                s.onExit { c, _ in c.journal.append("-s\(state)"); c.counter += 2 }
                for row in spec.rows[state] {
                    let action: MachineAction<S, RE, RC> = { c, _ in
                        c.journal.append("a\(row.id)")
                        c.counter += 3
                    }
                    if row.event < 0 {
                        s.always(when: guardOf(row.condition), to: row.target.map(symbol), kind: row.external ? .external : .local, action)
                    } else {
                        s.on(RE(rawValue: row.event)!, when: guardOf(row.condition), to: row.target.map(symbol), kind: row.external ? .external : .local, action)
                    }
                }
            }
        }
        return definition
    }

    /// The reference: the rules applied directly, with no precomputation.
    struct Model {
        let spec: Spec
        var leaf = -1
        var memory: [Int: Int] = [:]
        var context = RC()
        var limitHits = 0

        func holds(_ condition: (modulus: Int, remainder: Int)?) -> Bool {
            condition.map { context.counter % $0.modulus == $0.remainder } ?? true
        }

        mutating func start() {
            enter(target: 0, below: -1)
            settle()
        }

        mutating func send(_ event: Int) {
            if takeFirst(event) { settle() }
        }

        /// The first row for `event` (-1: eventless) whose guard holds, innermost state first.
        mutating func takeFirst(_ event: Int) -> Bool {
            var source = leaf
            while source >= 0 {
                for row in spec.rows[source] where row.event == event && holds(row.condition) {
                    take(row, from: source)
                    return true
                }
                source = spec.parent[source]
            }
            return false
        }

        /// Eventless rows until none holds, at most MachineLimits.maximumMicrosteps.
        mutating func settle() {
            var steps = 0
            while true {
                var copy = self
                guard copy.takeFirst(-1) else { return }
                if steps == MachineLimits.maximumMicrosteps {
                    limitHits += 1
                    return
                }
                self = copy
                steps += 1
            }
        }

        mutating func take(_ row: Row, from source: Int) {
            guard let written = row.target else {
                context.journal.append("a\(row.id)")
                context.counter += 3
                return
            }
            // A history stands for what it remembers, else its default (SCXML's effective
            // target states), and the domain is that of a row to those.
            let history = spec.history[written] ? written : nil
            let target = history.map { memory[$0] ?? spec.historyDefault[$0] } ?? written
            var domain: Int
            if !row.external && spec.isCompound(source) && target != source && spec.isInside(target, source) {
                domain = source
            } else {
                // The nearest superstate above the source that holds the target strictly inside
                // it (SCXML's LCCA: a target around the source is left and entered again).
                domain = spec.parent[source]
                while domain >= 0 && !(target != domain && spec.isInside(target, domain)) { domain = spec.parent[domain] }
            }
            var exiting = leaf
            while exiting != domain {
                for h in 0..<spec.count where spec.history[h] && spec.parent[h] == exiting {
                    var remembered = leaf
                    if !spec.deep[h] { while spec.parent[remembered] != exiting { remembered = spec.parent[remembered] } }
                    memory[h] = remembered
                }
                context.journal.append("-s\(exiting)")
                context.counter += 2
                exiting = spec.parent[exiting]
            }
            context.journal.append("a\(row.id)")
            context.counter += 3
            guard let history else { return enter(target: target, below: domain) }
            // Read again: leaving the history's superstate just now recorded it.
            let remembered = memory[history]
            enter(target: remembered ?? spec.historyDefault[history], below: domain, defaultOf: remembered == nil ? history : nil)
        }

        /// Enters the states from just below `top` down to `target`, then drills into initial
        /// states; with `history`, its default's action right after its superstate's entry,
        /// if the superstate is entered here.
        mutating func enter(target: Int, below top: Int, defaultOf history: Int? = nil) {
            var chain: [Int] = []
            var walker = target
            while walker != top { chain.insert(walker, at: 0); walker = spec.parent[walker] }
            for state in chain {
                enterOne(state)
                if let history, state == spec.parent[history] {
                    context.journal.append("h\(history)")
                    context.counter += 5
                }
            }
            drill(target)
        }

        mutating func enterOne(_ state: Int) {
            context.journal.append("+s\(state)")
            context.counter += 1
            leaf = state
        }

        mutating func drill(_ state: Int) {
            guard spec.isCompound(state) else { return }
            let initial = spec.initials[state].first { holds($0.condition) }!
            enter(target: initial.target, below: state)
        }
    }

    @Test("300 random nested machines, 60 random events each: the runtime's journal equals the reference's", arguments: 0..<PropertyCases.count(3))
    func randomMachines(batch: Int) throws {
        // What the batch exercised, so a generator that stopped producing a feature is noticed.
        var eventlessSteps = 0
        var transitions = 0
        var limitHits = 0
        defer {
            #expect(eventlessSteps > 500 && transitions > 1_000 && limitHits > 0, "eventless \(eventlessSteps), transitions \(transitions)")
            print("batch \(batch): \(transitions) transitions, \(eventlessSteps) eventless steps, \(limitHits) microstep limits")
        }
        for seed in UInt64(batch * 100)..<UInt64(batch * 100 + 100) {
            let spec = Self.generate(seed: seed)
            let table: TransitionTable<RS, RE, RC>
            do {
                table = try Self.definition(of: spec).compile()
            } catch {
                Issue.record("seed \(seed): \(error)\n\(spec)")
                continue
            }
            var machine = BareMachine(table: table, context: RC())
            var model = Model(spec: spec)
            machine.start()
            model.start()
            guard machine.context.journal == model.context.journal, machine.state.rawValue == model.leaf else {
                Issue.record("seed \(seed) start: runtime \(machine.context.journal) in \(machine.state), reference \(model.context.journal) in s\(model.leaf)\n\(spec)")
                continue
            }
            var random = SplitMix64(seed: seed ^ 0x9E37_79B9)
            var sent: [Int] = []
            for _ in 0..<60 {
                let event = random.below(RE.allCases.count)
                sent.append(event)
                machine.context.journal = []
                model.context.journal = []
                machine.send(RE(rawValue: event)!, at: .zero)
                model.send(event)
                if machine.context.journal != model.context.journal || machine.state.rawValue != model.leaf || machine.context.counter != model.context.counter
                    || machine.statistics.microstepLimitHits != model.limitHits {
                    Issue.record("seed \(seed) after \(sent.map { "e\($0)" }): runtime \(machine.context.journal) in \(machine.state), reference \(model.context.journal) in s\(model.leaf)\n\(spec)")
                    break
                }
            }
            eventlessSteps += machine.statistics.eventlessSteps
            transitions += machine.statistics.transitions
            limitHits += machine.statistics.microstepLimitHits
        }
    }
}

