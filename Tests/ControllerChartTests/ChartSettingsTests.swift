import ControllerChart
import ControllerHost
import ControllerTestSupport
import Testing

/// A chart's `<data>` as a setting of the board's section: the chart's value the default, the
/// board's within the binding's floor and ceiling, read by the chart's conditions.
@Suite("A chart controller's settings from its <data>")
struct ChartSettingsTests {
    enum Limited: ChartSpace { static let slot = ChartSlot<Limited>() }
    typealias Lamp = ChartController<Limited>

    static let chart = """
        <scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="lamp" initial="idle">
          <datamodel><data id="runs" expr="0"/><data id="limit" expr="2"/></datamodel>
          <state id="idle"><transition event="go" cond="runs &lt; limit" target="busy"/></state>
          <state id="busy">
            <onentry><assign location="runs" expr="runs + 1"/><send id="done" event="finish" delay="1s"/></onentry>
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

        [counters]
        runs = "runs of the lamp"

        [settings]
        limit = { min = 1, max = 5, summary = "how many runs the lamp gives" }
        """

    static let loaded: Result<LoadedChart<Limited>, any Error> = Result {
        let directory = try TemporaryDirectory()
        _ = try directory.file("lamp.scxml", chart)
        return try ChartLoader.load(bindingFile: try directory.file("lamp.toml", binding), into: Limited.self)
    }

    static let script = """
        0 pulse button
        2 pulse button
        4 pulse button
        6 expect counter runs NUMBER
        7 end
        """

    @Test("the chart's value is the default; the board's, within the bounds, is what the chart reads")
    func boardSetsTheData() throws {
        let chart = try Self.loaded.get()
        #expect(chart.settings.keys.map(\.name) == ["done", "limit"])
        #expect(chart.settings.keys.last?.range == 1...5)
        #expect(chart.settings.defaults.integers == [2])
        let wired = Lamp.builtInBoard.text
        #expect(try expectationFailures(of: Self.script.replacing("NUMBER", with: "2"), on: Board<Lamp>.parse(wired, file: "a.toml"), file: "a") == [])
        let three = try Board<Lamp>.parse(wired + "\n[lamp]\nlimit = 3\n", file: "three.toml")
        #expect(try expectationFailures(of: Self.script.replacing("NUMBER", with: "3"), on: three, file: "b") == [])
    }

    @Test("a board's value below the floor or above the ceiling is refused by its key path")
    func boardBounds() throws {
        _ = try Self.loaded.get()
        let wired = Lamp.builtInBoard.text
        #expect(throws: BoardFileError.self) { try Board<Lamp>.parse(wired + "\n[lamp]\nlimit = 0\n", file: "low.toml") }
        do {
            _ = try Board<Lamp>.parse(wired + "\n[lamp]\nlimit = 9\n", file: "high.toml")
        } catch {
            #expect(error.description.hasPrefix("high.toml: lamp.limit: 9 is out of range; write a whole number from 1 to 5"), "\(error)")
        }
    }
}
