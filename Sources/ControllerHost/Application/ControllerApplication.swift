import ControllerFSM

/// A controller, declared once in its own vocabulary: everything the runtime needs to read its
/// board file, drive its lines, run it as a daemon, store and show its counts, simulate it and
/// test it. The host, the simulator, the daemon, the store, HTTP and the command line read this
/// declaration; none of them knows any application's words.
///
/// An application is usually a caseless enum:
///
/// ```swift
/// enum Door: ControllerApplication {
///     static let name = "door"
///     static let table = try! doorDefinition().compile()
///     static let settings = SettingsDeclaration<Door>(section: "door", defaults: DoorSettings(), keys: [
///         .duration("close_delay", \.closeDelay, summary: "how long the door stays open"),
///     ])
///     static func makeContext(_ settings: DoorSettings) -> DoorContext { DoorContext(settings) }
///     static func apply(_ settings: DoorSettings, to context: inout DoorContext) { context.settings = settings }
///     static let inputs: [InputDeclaration<Door>] = [
///         .pulse("button", sends: .open, required: true, simulatedPulse: .milliseconds(100)),
///     ]
///     static let outputs: [OutputDeclaration<Door>] = [
///         OutputDeclaration("motor", required: true, initial: false) { state, _ in state == .opening },
///     ]
///     static let counters: [CounterDeclaration<Door>] = [.init("openings", \.openings)]
/// }
/// ```
public protocol ControllerApplication: Sendable {
    associatedtype State: MachineSymbol & Hashable
    associatedtype Event: MachineSymbol & Hashable
    associatedtype Context: Sendable
    /// The typed values of the application's board-file section (`[turnstile]`, `[barrier]`).
    associatedtype Settings: Hashable & Sendable

    /// The application's name: its board-file section, and how logs and messages call it.
    static var name: String { get }
    /// The command and daemon that run it (`turnstiled`): what usage lines, logs, the page's
    /// title and error messages that tell the user what to run call it. `name` + "d" by default.
    static var daemonName: String { get }
    /// One line for `--help`: what the controller is ("The coin-operated turnstile controller,
    /// on real GPIO or simulated.").
    static var summary: String { get }
    /// The simulated board `simulate`, `soak` and `check` use when given no `--board`: every role
    /// wired, the default timings. By default, one made from the declaration
    /// (``BuiltInBoard/wiringEveryRole(of:)``).
    static var builtInBoard: BuiltInBoard { get }
    /// The machine, compiled once.
    static var table: TransitionTable<State, Event, Context> { get }
    /// Room for the events the machine's actions send during one dispatch.
    static var queueCapacity: Int { get }

    /// The settings section: its keys, their types, defaults and limits.
    static var settings: SettingsDeclaration<Self> { get }
    /// The context a new machine starts with.
    static func makeContext(_ settings: Settings) -> Context
    /// Takes new settings (a reloaded board file) into a running machine's context; timers
    /// already running keep their deadlines.
    static func apply(_ settings: Settings, to context: inout Context)

    /// The output whose writes the daemon times from the event that caused them: the edge-to-
    /// write latency in `/metrics` and the run's stop record (the turnstile's lock). The first
    /// output by default.
    static var latencyOutput: RoleName? { get }
    /// The input roles, in the order boards list them and the host requests them.
    static var inputs: [InputDeclaration<Self>] { get }
    /// The output roles, in the order the host writes them after each step.
    static var outputs: [OutputDeclaration<Self>] { get }
    /// What the application counts, named once. The runtime adds `ignored` (events the table
    /// does not answer) after them.
    static var counters: [CounterDeclaration<Self>] { get }
    /// Values that are not counts (the turnstile's credit).
    static var gauges: [GaugeDeclaration<Self>] { get }
    /// States whose entry or exit the store counts as kinds of their own (the turnstile's
    /// `emergencyOn` and `emergencyOff`).
    static var stateCounts: [StateCount<Self>] { get }
    /// Balances the store's totals keep over every run (the turnstile's money).
    static var durableInvariants: [DurableInvariant] { get }
    /// The events an operator may send directly (`ctl`, a scenario's `event NAME`).
    static var commands: [DirectCommand<Self>] { get }
    /// What must hold after every step, whatever the inputs. The runtime checks these with the
    /// outputs' preconditions and the interlocks' exclusions (``checkedInvariants``).
    static var invariants: [Invariant<Self>] { get }
    /// When an interlock the outputs name yields (a fire alarm releases every door); none by
    /// default: every interlock holds always.
    static var interlocks: [InterlockDeclaration<Self>] { get }
    /// The application's own scenario words on top of the generic verbs (`coin` for
    /// `pulse coin`); none by default.
    static var scenarioWords: [ScenarioWord<Self>] { get }
    /// The scenario `simulate` plays without `--script`: it should visit every state `board`
    /// can reach, with `expect` lines that say it went right.
    static func demoScenario(for board: Board<Self>) -> String
    /// `simulate --break-probability`: which steps may break the mechanism, and what that sends.
    static var simulatedBreakage: SimulatedBreakage<Self>? { get }
    /// What Home Assistant's discovery says beyond the declaration: fault states, a cover.
    static var homeAssistant: HomeAssistantHints<Self> { get }
    /// What tells two contexts apart for `explore`, besides the state, the lines, the conditions
    /// and the running timer: the values that decide what the machine does next, counters left
    /// out (they only accumulate, and would keep the search from ending). Empty by default: the
    /// state alone decides.
    static func explorationKey(_ context: Context) -> [Int]
    /// The model of the mechanism the simulator puts behind a simulated board (the barrier's
    /// arm); ``NoPlant`` by default: the scenario alone drives the inputs.
    associatedtype Plant: SimulatedPlant = NoPlant<Self> where Plant.App == Self

    /// The event path, run by ``ControllerCore/process(now:)``: the edges waiting on the chip,
    /// debounced, each turned into the application's event, dispatched, and the outputs
    /// written; then the deadlines due. Do not implement it: the default, inlinable, is
    /// compiled into the application's own module as its witness, so the path runs
    /// specialized for the application's types instead of through generic metadata and
    /// witness tables on every call into the declaration (docs/performance.md, "Edge to output
    /// through the kernel").
    /// - Parameters:
    ///   - controller: the controller whose path runs.
    ///   - now: the time everything is handled up to.
    static func runEventPath(of controller: ControllerCore<Self>, now: MachineInstant) throws(GPIOError)
}

/// The simulator's random breakage (`--break-probability P`): after each step `after` names,
/// the mechanism breaks with probability P and `sends` is sent as a direct command.
public struct SimulatedBreakage<App: ControllerApplication>: Sendable {
    public let after: @Sendable (App.State, App.Event) -> Bool
    public let sends: App.Event

    public init(after: @escaping @Sendable (_ from: App.State, _ event: App.Event) -> Bool, sends: App.Event) {
        self.after = after
        self.sends = sends
    }
}

extension ControllerApplication {
    @inlinable
    public static func runEventPath(of controller: ControllerCore<Self>, now: MachineInstant) throws(GPIOError) {
        try controller.takeEventsAndDeadlines(upTo: now)
    }

    public static var queueCapacity: Int { 8 }
    public static var latencyOutput: RoleName? { outputs.first?.role }
    public static var daemonName: String { name + "d" }
    public static var summary: String { "The \(name) controller, on real GPIO or simulated." }
    public static var builtInBoard: BuiltInBoard { .wiringEveryRole(of: Self.self) }
    public static var gauges: [GaugeDeclaration<Self>] { [] }
    public static var stateCounts: [StateCount<Self>] { [] }
    public static var durableInvariants: [DurableInvariant] { [] }
    public static var commands: [DirectCommand<Self>] { [] }
    public static var invariants: [Invariant<Self>] { [] }
    public static var interlocks: [InterlockDeclaration<Self>] { [] }
    public static var scenarioWords: [ScenarioWord<Self>] { [] }
    public static var simulatedBreakage: SimulatedBreakage<Self>? { nil }
    public static var homeAssistant: HomeAssistantHints<Self> { HomeAssistantHints() }
    public static func explorationKey(_ context: Context) -> [Int] { [] }

    /// No demo of its own: `simulate` without `--script` runs one second and reports.
    public static func demoScenario(for board: Board<Self>) -> String { "1 end\n" }

    /// The durable balances as one run checks them: without the kinds only a restart books
    /// (``GaugeDeclaration/voidedByRestart``), which no run counts.
    public static var runBalances: [DurableInvariant] {
        let voided = Set(gauges.compactMap(\.voidedByRestart))
        return durableInvariants.map { $0.dropping(voided) }
    }

    /// The runtime's own counter, after the application's: events the table did not answer.
    public static var ignoredCounterName: String { "ignored" }

    /// Every counter's name, the application's then `ignored`: the order the store, `/status`,
    /// `/metrics`, `stats`, scenarios and the summary use.
    public static var counterNames: [String] { counters.map(\.name) + [ignoredCounterName] }

    /// The input role called `name`, by its index in ``inputs``. A plain loop: the simulated
    /// drivers look a pulse's width up per pulse, and unspecialised `firstIndex(where:)`
    /// allocates.
    public static func inputIndex(named name: RoleName) -> Int? {
        let inputs = inputs
        for index in inputs.indices where inputs[index].role == name { return index }
        return nil
    }

    /// The output role called `name`, by its index in ``outputs`` (a plain loop, as
    /// ``inputIndex(named:)``).
    public static func outputIndex(named name: RoleName) -> Int? {
        let outputs = outputs
        for index in outputs.indices where outputs[index].role == name { return index }
        return nil
    }

    /// The level the machine wants on output `index` in `state` with `context`, for a machine
    /// without parallel regions (`state` and its superstates are its whole configuration).
    public static func outputLevel(_ index: Int, state: State, context: Context) -> Bool {
        outputs[index].level(table.configuration(at: state), context)
    }

    /// The level the machine wants on output `index` in `configuration` with `context` (a pulse
    /// not included: that is the host's, in time).
    public static func outputLevel(_ index: Int, in configuration: ActiveConfiguration<State>, context: Context) -> Bool {
        outputs[index].level(configuration, context)
    }
}

/// A board file compiled into the application (`boards/sim.toml`, embedded as a resource), so
/// that its command runs without a board path or a resource bundle beside it.
public struct BuiltInBoard: Sendable {
    /// The file's text.
    public let text: String
    /// What messages call it (`boards/sim.toml (built in)`).
    public let file: String

    public init(text: String, file: String = "boards/sim.toml (built in)") {
        self.text = text
        self.file = file
    }

    /// A simulated board wiring every input, then every output, to consecutive lines from 0,
    /// active high, with the default debounce, pulses and section: what an application without a
    /// board file of its own simulates on.
    public static func wiringEveryRole<App: ControllerApplication>(of _: App.Type) -> BuiltInBoard {
        var lines = ["[board]", "name = \"sim\"", "backend = \"sim\"", "chip = \"\(App.name)-sim\""]
        let roles = App.inputs.map { ("inputs", $0.role) } + App.outputs.map { ("outputs", $0.role) }
        for (offset, (table, role)) in roles.enumerated() {
            lines += ["", "[\(table).\(role.rawValue)]", "line = \(offset)"]
        }
        return BuiltInBoard(text: lines.joined(separator: "\n") + "\n", file: "the built-in simulated board of \(App.daemonName)")
    }
}
