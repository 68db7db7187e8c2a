import ControllerFSM

/// One step of an application's exploration, as the host would take it, written as the
/// scenario's generic verbs write it.
public enum ExplorationStep<App: ControllerApplication>: Hashable, Sendable, CustomStringConvertible {
    /// A pulse input's active edge: its event.
    case pulse(RoleName)
    /// A level or condition input's line going active or inactive.
    case level(RoleName, on: Bool)
    /// One of the application's direct commands.
    case command(App.Event)
    /// Time moves to the running timer's deadline, which expires.
    case timerExpiry

    public var description: String {
        switch self {
        case .pulse(let role): "pulse \(role)"
        case .level(let role, let on): "set \(role) \(on ? "on" : "off")"
        case .command(let event): "event \(event.name)"
        case .timerExpiry: "(timer expires)"
        }
    }
}

/// A configuration an exploration reached: the machine's state and context, the input lines'
/// levels, and the steps that reached it from the start.
public struct ExploredConfiguration<App: ControllerApplication> {
    var machine: BareMachine<App.State, App.Event, App.Context>
    /// The time the configuration is at, in nanoseconds: events are sent at it.
    var time: Int64
    /// Each input line's level, by index in `App.inputs` (a pulse's is always inactive).
    var levels: [Bool]
    /// Each condition input's sources, by index in `App.inputs`.
    var conditions: [ConditionSources]
    /// The steps from the start.
    public let steps: [ExplorationStep<App>]
    /// The input lines found active at the start the steps were taken from.
    public let start: [RoleName: Bool]

    public var state: App.State { machine.state }
    public var context: App.Context { machine.context }
    /// Whether a timer of the machine runs.
    public var isTimerRunning: Bool { machine.nextDeadline != nil }

    /// The level of `role`'s line: for a condition, the line's (not the command's) level.
    public func level(of role: RoleName) -> Bool {
        App.inputIndex(named: role).map { levels[$0] } ?? false
    }
}

/// What an exploration found.
public struct ExplorationReport<App: ControllerApplication>: CustomStringConvertible {
    /// Distinct configurations reached, the start included.
    public var configurations = 0
    /// Steps run (each on a copy of a configuration).
    public var stepsRun = 0
    /// How deep the search went: the depth asked for, or less when no new configuration remained.
    public var depthReached = 0
    /// Every innermost state some configuration was in, of every region.
    public var statesSeen: Set<App.State> = []
    /// The first violation found, on a shortest sequence of steps that reaches it, and what broke.
    public var violation: (steps: [ExplorationStep<App>], message: String)?
    /// The start the violation's steps were taken from: the input lines active at start-up.
    public var violationStart: [RoleName: Bool] = [:]
    /// How many start-ups were explored (one per combination of level inputs with
    /// `exploreEveryStart`).
    public var starts = 1
    /// Whether the search ran out of new configurations before its depth: every configuration
    /// the steps can reach was checked. `false` when the last level still found new ones — a
    /// counter that runs away, a part of the key that only grows — and then a passing search
    /// says only that nothing broke within the depth. A test that relies on the search being
    /// whole requires it.
    public var isSaturated = false
    /// When not saturated: the parts of the key whose values the last level found new
    /// (`state`, `active states`, `histories`, `levels`, `conditions`, `timer`, `context`).
    public var stillChanging: [String] = []

    public var description: String {
        var text = "\(configurations) configurations, \(stepsRun) steps, depth \(depthReached), \(statesSeen.count) states"
        if starts > 1 { text += ", \(starts) starts" }
        if violation == nil && !isSaturated {
            text += "; not saturated: still finding new configurations at depth \(depthReached)"
            if !stillChanging.isEmpty { text += " (new values of \(stillChanging.joined(separator: ", ")))" }
        }
        if let violation {
            let active = violationStart.filter(\.value).map(\.key.rawValue).sorted()
            let start = starts > 1 || !active.isEmpty ? " from a start with \(active.isEmpty ? "no line" : active.joined(separator: ", ")) active" : ""
            text += "; violated after " + (violation.steps.isEmpty ? "no step" : violation.steps.map(\.description).joined(separator: ", "))
                + start + ": \(violation.message)"
        }
        return text
    }
}

/// The search's default depth: every sequence of this many steps from the start.
public enum ExplorationDefaults {
    public static let depth = 12
    /// `exploreEveryStart` starts from each of 2^n combinations of n level inputs: past this
    /// many, 2^n starts times an exploration each would not finish in a test.
    public static let maximumLevelInputs = 12
}

extension ControllerApplication {
    /// Every sequence of up to `depth` steps from a started machine, taken as the host takes its
    /// inputs, with every one of ``checkedInvariants`` (and `check`) checked on the start and after
    /// every step. Breadth-first, so a violation is reported with a shortest sequence reaching it.
    ///
    /// The steps come from the declaration: each pulse input's event; each level input's edges,
    /// with the level written into the context first where the binding keeps it; each condition
    /// line going on and off (the condition's event sent only when the combined condition
    /// changes, as the host does); each direct command (a condition's own events through the
    /// condition's command source); and time running to the next timer's expiry. An output pulse
    /// an action asks for is taken, as the host takes it.
    ///
    /// - Parameters:
    ///   - depth: the longest sequence of steps tried.
    ///   - settings: the settings the context is made from.
    ///   - levels: the input lines found active at start-up (read into the context, or a
    ///     condition begun, as the host does).
    ///   - key: what tells two contexts apart for the search, besides the state, the lines'
    ///     levels, the conditions' sources and the time left on the running timer. Leave out
    ///     what only accumulates (counters), and check it with the invariants instead.
    ///   - allows: refuses a step from a configuration that the world cannot take (two limit
    ///     switches of one arm both active).
    ///   - check: a further check of each step, before and after: a message when it is wrong.
    ///   - table: the machine to explore with this declaration: the application's own by default;
    ///     another (a change under review, an older table) to see what it would break.
    public static func explore<Key: Hashable>(
        depth: Int = ExplorationDefaults.depth, settings: Settings = Self.settings.defaults, levels: [RoleName: Bool] = [:],
        table: TransitionTable<State, Event, Context> = Self.table,
        key: (State, Context) -> Key,
        allows: (ExplorationStep<Self>, ExploredConfiguration<Self>) -> Bool = { _, _ in true },
        check: (_ before: ExploredConfiguration<Self>, _ after: ExploredConfiguration<Self>) -> String? = { _, _ in nil }
    ) -> ExplorationReport<Self> {
        search(depth: depth, starts: [startConfiguration(settings: settings, levels: levels, table: table)], key: key, allows: allows, check: check)
    }

    /// ``explore(depth:settings:levels:table:key:allows:check:)`` from every start-up the world
    /// can give: each combination of the level and condition inputs' lines, active or not, that
    /// `startAllowed` admits (a barrier's arm cannot touch both limit switches), all searched as
    /// one (a configuration reached from two starts is explored once). A controller that starts
    /// with a door open, an arm up or a fire alarm on is explored too; a violation names its
    /// start (``ExplorationReport/violationStart``).
    public static func exploreEveryStart<Key: Hashable>(
        depth: Int = ExplorationDefaults.depth, settings: Settings = Self.settings.defaults,
        table: TransitionTable<State, Event, Context> = Self.table,
        key: (State, Context) -> Key,
        startAllowed: ([RoleName: Bool]) -> Bool = { _ in true },
        allows: (ExplorationStep<Self>, ExploredConfiguration<Self>) -> Bool = { _, _ in true },
        check: (_ before: ExploredConfiguration<Self>, _ after: ExploredConfiguration<Self>) -> String? = { _, _ in nil }
    ) -> ExplorationReport<Self> {
        let levelRoles = inputs.filter(\.binding.isLevel).map(\.role)
        precondition(
            levelRoles.count <= ExplorationDefaults.maximumLevelInputs,
            "\(name) has \(levelRoles.count) level inputs: 2^\(levelRoles.count) starts are too many to explore (at most \(ExplorationDefaults.maximumLevelInputs))")
        var starts: [ExploredConfiguration<Self>] = []
        for combination in 0..<(1 << levelRoles.count) {
            let levels = Dictionary(uniqueKeysWithValues: levelRoles.enumerated().map { ($1, combination & (1 << $0) != 0) })
            guard startAllowed(levels) else { continue }
            starts.append(startConfiguration(settings: settings, levels: levels, table: table))
        }
        precondition(!starts.isEmpty, "startAllowed admits no start-up at all")
        return search(depth: depth, starts: starts, key: key, allows: allows, check: check)
    }

    /// Breadth-first from every start at once.
    private static func search<Key: Hashable>(
        depth: Int, starts: [ExploredConfiguration<Self>], key: (State, Context) -> Key,
        allows: (ExplorationStep<Self>, ExploredConfiguration<Self>) -> Bool,
        check: (_ before: ExploredConfiguration<Self>, _ after: ExploredConfiguration<Self>) -> String?
    ) -> ExplorationReport<Self> {
        precondition(depth >= 0, "depth must be 0 or more, got \(depth)")
        var report = ExplorationReport<Self>()
        report.starts = starts.count
        func nodeKey(_ c: ExploredConfiguration<Self>) -> ExplorationKey<Self, Key> {
            ExplorationKey(
                state: c.state, active: c.machine.activeStates, remembered: c.machine.rememberedConfigurations, levels: c.levels, conditions: c.conditions,
                timerLeft: c.machine.nextDeadline.map { $0.nanoseconds &- c.time }, context: key(c.state, c.context))
        }
        var seen: Set<ExplorationKey<Self, Key>> = []
        var frontier: [ExploredConfiguration<Self>] = []
        for start in starts {
            report.statesSeen.formUnion(start.machine.activeStates)
            if let message = violation(of: start) {
                report.violation = ([], message)
                report.violationStart = start.start
                report.configurations = max(1, seen.count)
                return report
            }
            if seen.insert(nodeKey(start)).inserted { frontier.append(start) }
        }
        report.configurations = seen.count
        guard depth > 0 else {
            report.isSaturated = frontier.isEmpty
            return report
        }
        let steps = explorationSteps
        for level in 1...depth {
            var next: [ExploredConfiguration<Self>] = []
            // What was seen before the last level, to say what that level still found new.
            let earlier = level == depth ? ExplorationKeyParts(seen) : nil
            for configuration in frontier {
                for step in steps where allows(step, configuration) {
                    guard let after = take(step, from: configuration) else { continue }
                    report.stepsRun += 1
                    report.statesSeen.formUnion(after.machine.activeStates)
                    if let message = violation(of: after) ?? check(configuration, after) {
                        report.violation = (after.steps, message)
                        report.violationStart = after.start
                        report.configurations = seen.count
                        report.depthReached = level
                        return report
                    }
                    if seen.insert(nodeKey(after)).inserted { next.append(after) }
                }
            }
            report.depthReached = level
            if next.isEmpty {
                report.isSaturated = true
                break
            }
            if let earlier { report.stillChanging = earlier.partsChanged(by: next.map(nodeKey)) }
            frontier = next
        }
        report.configurations = seen.count
        return report
    }

    /// Every step the declaration offers, in its order: inputs, then commands, then time.
    static var explorationSteps: [ExplorationStep<Self>] {
        var steps: [ExplorationStep<Self>] = []
        for input in inputs {
            if case .pulse = input.binding {
                steps.append(.pulse(input.role))
            } else {
                steps += [.level(input.role, on: true), .level(input.role, on: false)]
            }
        }
        return steps + commands.map { .command($0.event) } + [.timerExpiry]
    }

    /// The first invariant that does not hold, named with the state.
    static func violation(of configuration: ExploredConfiguration<Self>) -> String? {
        let active = configuration.machine.configuration
        return checkedInvariants.first { !$0.holds(active, configuration.context) }
            .map { "\($0.name) (broken in \(activeStateNames(configuration.machine.activeStates)))" }
    }

    static func startConfiguration(
        settings: Settings, levels given: [RoleName: Bool], table: TransitionTable<State, Event, Context> = Self.table
    ) -> ExploredConfiguration<Self> {
        var context = makeContext(settings)
        var levels = Array(repeating: false, count: inputs.count)
        var conditions = Array(repeating: ConditionSources(), count: inputs.count)
        var conditionsOn: [Event] = []
        for (index, input) in inputs.enumerated() {
            let active = given[input.role] ?? false
            switch input.binding {
            case .pulse: continue
            case .level(_, _, let keep): keep?(&context, active)
            case .condition(let on, _): if conditions[index].set(.line, active: active) == true { conditionsOn.append(on) }
            }
            levels[index] = active
        }
        var machine = BareMachine(table: table, context: context, queueCapacity: queueCapacity)
        machine.start(at: .zero)
        for event in conditionsOn { machine.send(event, at: .zero) }
        var start = ExploredConfiguration<Self>(
            machine: machine, time: 0, levels: levels, conditions: conditions, steps: [],
            start: Dictionary(uniqueKeysWithValues: inputs.filter(\.binding.isLevel).map { ($0.role, given[$0.role] ?? false) }))
        takeOutputPulses(&start)
        return start
    }

    /// `step` taken on a copy of `configuration`; `nil` when it is no step from there (a line
    /// already at that level, a command that changes no condition, no timer running).
    static func take(_ step: ExplorationStep<Self>, from configuration: ExploredConfiguration<Self>) -> ExploredConfiguration<Self>? {
        var c = ExploredConfiguration<Self>(
            machine: configuration.machine, time: configuration.time, levels: configuration.levels,
            conditions: configuration.conditions, steps: configuration.steps + [step], start: configuration.start)
        let now = MachineInstant(nanoseconds: c.time)
        switch step {
        case .pulse(let role):
            guard let index = inputIndex(named: role), case .pulse(let event) = inputs[index].binding else { return nil }
            c.machine.send(event, at: now)
        case .level(let role, let on):
            guard let index = inputIndex(named: role), c.levels[index] != on else { return nil }
            c.levels[index] = on
            switch inputs[index].binding {
            case .pulse: return nil
            case .level(let onEvent, let offEvent, let keep):
                keep?(&c.machine.context, on)
                c.machine.send(on ? onEvent : offEvent, at: now)
            case .condition(let onEvent, let offEvent):
                if let changed = c.conditions[index].set(.line, active: on) { c.machine.send(changed ? onEvent : offEvent, at: now) }
            }
        case .command(let event):
            if let index = inputs.indices.first(where: { inputs[$0].conditionEvents.map { $0.on == event || $0.off == event } ?? false }) {
                let (onEvent, offEvent) = inputs[index].conditionEvents!
                guard let changed = c.conditions[index].set(.command, active: event == onEvent) else { return nil }
                c.machine.send(changed ? onEvent : offEvent, at: now)
            } else {
                c.machine.send(event, at: now)
            }
        case .timerExpiry:
            guard let deadline = c.machine.nextDeadline else { return nil }
            c.machine.advance(to: deadline)
            c.time = deadline.nanoseconds
        }
        takeOutputPulses(&c)
        return c
    }

    /// Takes the output pulses the step's actions asked for, as the host's output pass does (a
    /// request left standing would read as a pulse asked for by every later step).
    static func takeOutputPulses(_ c: inout ExploredConfiguration<Self>) {
        for output in outputs {
            if let pulse = output.pulse { _ = pulse.takeRequest(&c.machine.context) }
        }
    }
}

extension InputDeclaration {
    /// A condition input's events.
    var conditionEvents: (on: App.Event, off: App.Event)? {
        if case .condition(let on, let off) = binding { return (on, off) }
        return nil
    }
}

/// The keys of a search seen before its last level: to say, of a search that did not saturate,
/// which parts of the key made its last level's configurations new. A part made a key new when
/// the key with that part set aside (given one fixed value) was already seen: the rest of it
/// was old.
struct ExplorationKeyParts<App: ControllerApplication, Context: Hashable> {
    static var partNames: [String] { ["state", "active states", "histories", "levels", "conditions", "timer", "context"] }
    let seen: Set<ExplorationKey<App, Context>>

    init(_ seen: Set<ExplorationKey<App, Context>>) { self.seen = seen }

    /// `key` with part `part` set to the value `neutral` has there.
    static func setAside(_ part: Int, of key: ExplorationKey<App, Context>, as neutral: ExplorationKey<App, Context>) -> ExplorationKey<App, Context> {
        var key = key
        switch part {
        case 0: key.state = neutral.state
        case 1: key.active = neutral.active
        case 2: key.remembered = neutral.remembered
        case 3: key.levels = neutral.levels
        case 4: key.conditions = neutral.conditions
        case 5: key.timerLeft = neutral.timerLeft
        default: key.context = neutral.context
        }
        return key
    }

    /// The parts that made `keys` new; none when no part did alone (several changed together).
    func partsChanged(by keys: [ExplorationKey<App, Context>]) -> [String] {
        guard let neutral = seen.first ?? keys.first else { return [] }
        var changed: [String] = []
        for part in Self.partNames.indices {
            let projected = Set(seen.map { Self.setAside(part, of: $0, as: neutral) })
            if keys.contains(where: { projected.contains(Self.setAside(part, of: $0, as: neutral)) }) { changed.append(Self.partNames[part]) }
        }
        return changed
    }
}

/// What tells two explored configurations apart.
struct ExplorationKey<App: ControllerApplication, Context: Hashable>: Hashable {
    var state: App.State
    /// Every active innermost state: with parallel regions, one per region.
    var active: [App.State]
    /// What the histories remember: two machines in one state that would come back to
    /// different ones are two configurations.
    var remembered: [[App.State]]
    var levels: [Bool]
    var conditions: [ConditionSources]
    var timerLeft: Int64?
    var context: Context
}
