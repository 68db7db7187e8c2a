import ControllerChart
import ControllerHost
import ControllerSCXML
import ControllerTestSupport
import Testing

/// What a chart controller refuses at load, each naming the binding file's key path or the
/// chart's line, and what to do. The refused loads share one space, which each refusal leaves
/// empty for the next: one at a time (a second load into a space while one is under way is
/// refused, as a second chart is).
@Suite("A chart controller's refusals at load", .serialized)
struct ChartRefusalTests {
    enum Scratch: ChartSpace { static let slot = ChartSlot<Scratch>() }
    enum Twice: ChartSpace { static let slot = ChartSlot<Twice>() }

    static let chart = """
        <scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="idle">
          <datamodel><data id="count" expr="0"/></datamodel>
          <state id="idle"><transition event="go" target="busy"/></state>
          <state id="busy">
            <onentry><send id="done" event="finish" delay="1s"/></onentry>
            <transition event="finish" target="idle"/>
          </state>
        </scxml>
        """

    static let binding = """
        [chart]
        file = "lamp.scxml"

        [inputs.button]
        pulse = "go"

        [outputs.lamp]
        when = "In('busy')"
        """

    /// The refusal of loading `binding` with `chart` beside it, in `Scratch`.
    func refusal(binding: String = Self.binding, chart: String = Self.chart) throws -> String {
        let directory = try TemporaryDirectory()
        _ = try directory.file("lamp.scxml", chart)
        let path = try directory.file("lamp.toml", binding)
        do {
            try ChartLoader.load(bindingFile: path, into: Scratch.self)
        } catch {
            #expect(!Scratch.slot.isLoaded, "a refused load leaves the space empty")
            return error.description.replacing(directory.url.path + "/", with: "")
        }
        Issue.record("loaded")
        return ""
    }

    @Test("an event no transition takes, by key path, with the events the chart takes and a near miss")
    func unknownEvent() throws {
        let message = try refusal(binding: Self.binding.replacing("pulse = \"go\"", with: "pulse = \"goo\""))
        #expect(message.hasPrefix("lamp.toml: inputs.button.pulse: no transition of "), "\(message)")
        #expect(message.contains("did you mean \"go\"?") && message.contains("its transitions take finish, go"), "\(message)")
    }

    @Test("an output's condition the datamodel cannot read, by key path")
    func unreadableCondition() throws {
        let message = try refusal(binding: Self.binding.replacing("In('busy')", with: "lit == 1"))
        #expect(message.hasPrefix("lamp.toml: outputs.lamp.when: \"lit == 1\": "), "\(message)")
        #expect(message.contains("In('STATE')"), "\(message)")
    }

    @Test("a counter that is no <data> of the chart, by key path, with the chart's data")
    func unknownCounter() throws {
        let message = try refusal(binding: Self.binding + "\n[counters]\ncounts = \"lamps lit\"\n")
        #expect(message.hasPrefix("lamp.toml: counters.counts: "), "\(message)")
        #expect(message.contains("its <data>: count"), "\(message)")
    }

    @Test("a delayed send without an id, and a send with no delay, by the chart's line")
    func sendsThatAreNoTimers() throws {
        let noID = try refusal(chart: Self.chart.replacing("<send id=\"done\" ", with: "<send "))
        #expect(noID.hasPrefix("lamp.scxml:5: <send>: not supported: a chart controller's delayed <send> needs an id"), "\(noID)")
        let noDelay = try refusal(chart: Self.chart.replacing(" delay=\"1s\"", with: ""))
        #expect(noDelay.hasPrefix("lamp.scxml:5: <send>: not supported: a chart controller's <send> is a timer and needs a delay"), "\(noDelay)")
        let log = try refusal(chart: Self.chart.replacing("<onentry>", with: "<onentry><log label=\"busy\"/>"))
        #expect(log.hasPrefix("lamp.scxml:5: <log>: not supported: a chart controller has no <log>"), "\(log)")
    }

    @Test("an input that is two kinds at once, and a binding without its chart")
    func malformedBinding() throws {
        let two = try refusal(binding: Self.binding.replacing("pulse = \"go\"", with: "pulse = \"go\"\nlevel = [\"go\", \"go\"]"))
        #expect(two.hasPrefix("lamp.toml: inputs.button.level: an input is one of pulse, level or condition, not several"), "\(two)")
        let none = try refusal(binding: "[inputs.button]\npulse = \"go\"\n")
        #expect(none.hasPrefix("lamp.toml: chart: missing"), "\(none)")
    }

    @Test("a state the chart does not have, in a state count or Home Assistant's hints, with a near miss")
    func unknownState() throws {
        let counted = try refusal(binding: Self.binding + "\n[state_counts]\nruns = { entering = \"bsy\" }\n")
        #expect(counted.hasPrefix("lamp.toml: state_counts.runs.entering: lamp.scxml has no state \"bsy\"; did you mean \"busy\"?"), "\(counted)")
        let fault = try refusal(binding: Self.binding + "\n[home_assistant]\nfault_states = [\"broken\"]\n")
        #expect(fault.hasPrefix("lamp.toml: home_assistant.fault_states: lamp.scxml has no state \"broken\""), "\(fault)")
    }

    @Test("a cover opened by an event that is not one of the binding's commands")
    func coverCommand() throws {
        let message = try refusal(binding: Self.binding + """

            [home_assistant.cover]
            device_class = "door"
            open = "go"
            open_states = ["busy"]
            """)
        #expect(message.hasPrefix("lamp.toml: home_assistant.cover.open: \"go\" is not one of the binding's [commands]"), "\(message)")
    }

    @Test("a setting the chart assigns, one without a value, one whose value is past its bounds")
    func settingsRefused() throws {
        let setting = "\n[settings]\ncount = { min = 0, max = 5 }\n"
        let assigned = try refusal(binding: Self.binding + setting, chart: Self.chart.replacing(
            "<transition event=\"finish\" target=\"idle\"/>", with: "<transition event=\"finish\" target=\"idle\"><assign location=\"count\" expr=\"count + 1\"/></transition>"))
        #expect(assigned.hasPrefix("lamp.toml: settings.count: lamp.scxml:6 assigns count, a setting"), "\(assigned)")
        let unbound = try refusal(binding: Self.binding + setting, chart: Self.chart.replacing("<data id=\"count\" expr=\"0\"/>", with: "<data id=\"count\"/>"))
        #expect(unbound.hasPrefix("lamp.toml: settings.count: <data id=\"count\"> has no value at the start"), "\(unbound)")
        let outside = try refusal(binding: Self.binding + "\n[settings]\ncount = { min = 1, max = 5 }\n")
        #expect(outside.hasPrefix("lamp.toml: settings.count: the chart's value of count, 0, is outside 1...5"), "\(outside)")
    }

    @Test("a second chart in a space that holds one is refused; the first stays")
    func oneChartPerSpace() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("lamp.scxml", Self.chart)
        let path = try directory.file("lamp.toml", Self.binding)
        let first = try ChartLoader.load(bindingFile: path, into: Twice.self)
        #expect(throws: ChartLoadError.self) { try ChartLoader.load(bindingFile: path, into: Twice.self) }
        #expect(Twice.slot.chart.name == first.name)
        #expect(ChartController<Twice>.State.allCases.map(\.name) == ["idle", "busy"])
    }
}
