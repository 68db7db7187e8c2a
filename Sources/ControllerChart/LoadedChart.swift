import ControllerFSM
import ControllerHost
import ControllerSCXML

/// A chart and its binding, made into the declaration a controller gives the runtime.
public struct LoadedChart<Space: ChartSpace>: Sendable {
    public typealias App = ChartController<Space>

    /// The binding file it was loaded from, and the chart's path.
    public let bindingFile: String
    public let chartFile: String
    public let machine: ChartMachine<IntegerDatamodel, Space>
    public let binding: ChartBinding
    /// The chart's timers, by slot.
    public let timers: [ChartTimers.DelayedSend]
    public let name: String
    public let summary: String
    public let settings: SettingsDeclaration<App>
    public let inputs: [InputDeclaration<App>]
    public let outputs: [OutputDeclaration<App>]
    public let counters: [CounterDeclaration<App>]
    public let commands: [DirectCommand<App>]
    public let invariants: [Invariant<App>]
    /// The datamodel's slots of the binding's `[counters]`.
    public let counterSlots: [Int]
    /// The datamodel's slots of the binding's `[settings]`, in its order.
    public let settingSlots: [Int]
    public let stateCounts: [StateCount<App>]
    public let homeAssistant: HomeAssistantHints<App>
    /// The binding's board (`[chart] board`), or every role wired on a simulated chip.
    public let builtInBoard: BuiltInBoard?
    /// The binding's demo scenario (`[chart] demo`): its text.
    public let demoScenario: String?
    /// What the loader passed over in the chart (an editor's markup), one note each.
    public let notes: [String]
}
