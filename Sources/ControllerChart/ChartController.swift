import ControllerFSM
import ControllerHost
import ControllerSCXML

/// An SCXML chart as a controller: the application whose declaration is read, when the chart is
/// loaded, from the chart and its binding file (``ChartLoader``), held in `Space`. Everything
/// the runtime gives a Swift controller — `simulate`, `check`, `graph`, `run` with its status,
/// store, recorder and site — runs it unchanged: they read the declaration, not its source.
///
/// Its context is the chart's: the datamodel's values and the active states (what `In()` and
/// the binding's conditions read), and its timers' delays.
public enum ChartController<Space: ChartSpace>: ControllerApplication {
    public typealias State = ChartState<Space>
    public typealias Event = ChartEvent<Space>
    public typealias Context = SCXMLContext<IntegerDatamodel>
    public typealias Settings = ChartSettings

    /// The loaded chart.
    public static var chart: LoadedChart<Space> { Space.slot.chart }

    public static var name: String { chart.name }
    /// The binding's `[chart] daemon`, or `chartd`.
    public static var daemonName: String { chart.binding.daemon ?? ChartLoader.daemonName }
    public static var summary: String { chart.summary }
    public static var table: TransitionTable<State, Event, Context> { chart.machine.table }
    /// Room for the events the chart raises in one step, as SCXML's internal queue.
    public static var queueCapacity: Int { ChartLoader.internalQueueCapacity }
    public static var settings: SettingsDeclaration<Self> { chart.settings }
    public static var inputs: [InputDeclaration<Self>] { chart.inputs }
    public static var outputs: [OutputDeclaration<Self>] { chart.outputs }
    public static var counters: [CounterDeclaration<Self>] { chart.counters }
    public static var commands: [DirectCommand<Self>] { chart.commands }
    public static var invariants: [Invariant<Self>] { chart.invariants }
    public static var stateCounts: [StateCount<Self>] { chart.stateCounts }
    public static var homeAssistant: HomeAssistantHints<Self> { chart.homeAssistant }
    public static var builtInBoard: BuiltInBoard { chart.builtInBoard ?? .wiringEveryRole(of: Self.self) }

    /// Every `<data>` but the counted ones (an unbound one as `Int.min`): what the chart's
    /// conditions read.
    public static func explorationKey(_ context: Context) -> [Int] {
        let counted = chart.counterSlots
        return context.model.values.indices.filter { !counted.contains($0) }.map { context.model.values[$0] ?? Int.min }
    }

    /// The binding's demo (`[chart] demo`), or one second.
    public static func demoScenario(for board: Board<Self>) -> String { chart.demoScenario ?? "1 end\n" }

    public static func makeContext(_ settings: ChartSettings) -> Context {
        var context = chart.machine.context
        apply(settings, to: &context)
        return context
    }

    public static func apply(_ settings: ChartSettings, to context: inout Context) {
        // In place, not a new array: a reload (SIGHUP) applies them on the event loop, which
        // allocates nothing. Every chart's context has a delay per timer slot (the builder's).
        for slot in context.timerDelays.indices where slot < settings.timers.count {
            context.timerDelays[slot] = settings.timers[slot].nanosecondCount
        }
        // The chart never assigns a setting's <data> (the loader refuses it): the board's value
        // stands until the next reload.
        for (slot, value) in zip(chart.settingSlots, settings.integers) { try? context.model.assign(value, to: slot) }
    }
}

/// A chart controller's board-file section: the delay of each of its timers, by the timer's id
/// (the chart's `<send delay>` is the default), and the `<data>` the binding's `[settings]`
/// name (the chart's `expr` is the default).
public struct ChartSettings: Hashable, Sendable {
    /// By timer slot, in the chart's order.
    public var timers: [Duration]
    /// By the binding's `[settings]`, in its order.
    public var integers: [Int]

    public init(timers: [Duration], integers: [Int] = []) {
        self.timers = timers
        self.integers = integers
    }
}
