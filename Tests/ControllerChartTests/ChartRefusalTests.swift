import ControllerChart
import ControllerHost
import ControllerSCXML
import ControllerTestSupport
import Testing

/// What a chart controller refuses at load, each naming the binding file's key path or the
/// chart's line, and what to do. Each load is into a space of its own, which a refusal leaves
/// empty for the next.
@Suite("A chart controller's refusals at load")
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
    }

    @Test("an input that is two kinds at once, and a binding without its chart")
    func malformedBinding() throws {
        let two = try refusal(binding: Self.binding.replacing("pulse = \"go\"", with: "pulse = \"go\"\nlevel = [\"go\", \"go\"]"))
        #expect(two.hasPrefix("lamp.toml: inputs.button.level: an input is one of pulse, level or condition, not several"), "\(two)")
        let none = try refusal(binding: "[inputs.button]\npulse = \"go\"\n")
        #expect(none.hasPrefix("lamp.toml: chart: missing"), "\(none)")
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
